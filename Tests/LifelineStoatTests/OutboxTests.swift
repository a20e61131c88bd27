import Foundation
import Testing

@testable import LifelineStoat

/// An outbox and its clock, for stories: one line per fact, then the actions it decided.
private struct Story {
    var outbox = Outbox()
    var now: Duration = .zero
    static let floor = "01HFLOOR000000000000000000"

    /// A message in `channel`, named `nonce`.
    static func message(_ text: String = "hi", nonce: String) -> OutgoingMessage {
        OutgoingMessage(content: text, nonce: "body-nonce-is-never-sent", idempotencyKey: nonce)
    }

    /// What the server stores for the entry's current key.
    static func stored(_ id: String, key: String, channel: String = "C") -> Message {
        Message(id: id, nonce: key, channel: channel, author: "me", content: "hi")
    }

    mutating func send(_ nonce: String, to channel: String = "C") -> [Outbox.Action] {
        let record = outbox.makeRecord(
            nonce: nonce, channel: channel, message: Self.message(nonce: nonce), floor: Self.floor)
        return outbox.enqueue(record, now: now)
    }

    mutating func connect(_ generation: UInt64? = 1) -> [Outbox.Action] {
        outbox.connectionChanged(generation, now: now)
    }

    mutating func posted(_ nonce: String, _ key: String, _ outcome: Outbox.PostOutcome) -> [Outbox.Action] {
        outbox.posted(nonce, key: key, outcome: outcome, now: now)
    }

    mutating func lookedUp(_ nonce: String, _ result: Outbox.LookupResult) -> [Outbox.Action] {
        outbox.lookedUp(nonce, result: result, now: now)
    }

    mutating func advance(_ duration: Duration, firing ticket: UInt64) -> [Outbox.Action] {
        now += duration
        return outbox.wake(ticket: ticket, now: now)
    }

    func state(_ nonce: String) -> OutboxEntry.State? {
        outbox.publicEntries.first { $0.nonce == nonce }?.state
    }

    func record(_ nonce: String) -> Outbox.Record? {
        outbox.entries.first { $0.nonce == nonce }?.record
    }
}

extension [Outbox.Action] {
    /// The requests among the actions: what the outbox asked the server.
    var requests: [String] {
        compactMap { action in
            switch action {
            case .post(let record, let generation): "post \(record.key) on \(generation.map { "\($0)" } ?? "nil")"
            case .lookUp(let nonce, let channel, let floor): "look up \(nonce) in \(channel) after \(floor)"
            default: nil
            }
        }
    }

    /// The states announced, in order.
    var announced: [String] { compactMap { $0.announced.map { "\($0.nonce) \($0.state.name)" } } }

    var watches: [Outbox.Action] {
        filter { if case .watch = $0 { true } else { false } }
    }
}

@Suite("The outbox's decisions")
struct OutboxTests {
    @Test("offline a message waits queued; CONNECTED persists it as posted, then posts it with its nonce as the key")
    func queuedUntilConnected() {
        var story = Story()
        let queued = story.send("n1")
        #expect(queued.announced == ["n1 queued"])
        #expect(queued.requests.isEmpty)
        let connected = story.connect()
        var posted = Story.message(nonce: "n1")
        posted.nonce = nil
        #expect(connected.first == .persist(story.record("n1")!))
        #expect(story.record("n1")?.posted == true)
        #expect(connected.requests == ["post n1 on 1"])
        guard case .post(let record, _) = connected.last else {
            Issue.record("no post")
            return
        }
        #expect(record.message == posted, "the key is the nonce; no body nonce")
        #expect(story.state("n1") == .sending)
    }

    @Test("a stored answer is sent with its id, leaves the outbox, joins the cache, and the socket owes its event")
    func storedAnswer() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        let message = Story.stored("M1", key: "n1")
        let actions = story.posted("n1", "n1", .stored(message))
        #expect(actions.contains(.remove(nonce: "n1")))
        #expect(actions.announced == ["n1 sent"])
        #expect(actions.contains(.cache(message)))
        #expect(actions.contains(.expectDelivery(key: "n1", generation: 1)))
        #expect(story.outbox.entries.isEmpty)
        // Its event arrives: the delivery is seen.
        #expect(story.outbox.delivered(message, now: story.now) == [.deliverySeen(key: "n1")])
        #expect(story.outbox.delivered(message, now: story.now).isEmpty)
    }

    @Test("a server that echoes a different nonce: sent by its answer, and its event recognised by the id")
    func otherNonce() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        let message = Message(id: "M1", nonce: "something-else", channel: "C", author: "me", content: "hi")
        let stored = story.posted("n1", "n1", .stored(message))
        #expect(stored.announced == ["n1 sent"])
        #expect(stored.contains(.expectDelivery(key: "n1", generation: 1)))
        #expect(story.outbox.delivered(message, now: story.now) == [.deliverySeen(key: "n1")])
    }

    @Test("the event arriving before the answer sends it; the answer then changes nothing, and no delivery is owed")
    func echoFirst() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        let message = Story.stored("M1", key: "n1")
        let echoed = story.outbox.delivered(message, now: story.now)
        #expect(echoed.announced == ["n1 sent"])
        #expect(echoed.contains(.remove(nonce: "n1")))
        #expect(!echoed.contains(.cache(message)), "the socket's event is in the cache already")
        #expect(story.posted("n1", "n1", .stored(message)).isEmpty)
    }

    @Test(
        "a lost answer: looked for, found — sent once, never posted again; the socket of the post's connection owes its event"
    )
    func lostAnswerFound() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        let unknown = story.posted("n1", "n1", .unknown(conflict: false))
        #expect(unknown.requests == ["look up n1 in C after \(Story.floor)"])
        #expect(story.state("n1") == .sending)
        let message = Story.stored("M1", key: "n1")
        let found = story.lookedUp("n1", .found(message))
        #expect(found.announced == ["n1 sent"])
        #expect(found.requests.isEmpty)
        // The socket would have resolved the entry had it brought the event: a deaf one is found out by it.
        #expect(found.contains(.expectDelivery(key: "n1", generation: 1)))
        #expect(story.outbox.delivered(message, now: story.now) == [.deliverySeen(key: "n1")])
    }

    @Test("a message found after a reconnect, or after a 409, is owed to no socket")
    func lookedUpOwedToNone() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        _ = story.posted("n1", "n1", .unknown(conflict: false))
        _ = story.connect(2)
        let afterReconnect = story.lookedUp("n1", .found(Story.stored("M1", key: "n1")))
        #expect(afterReconnect.announced == ["n1 sent"])
        #expect(!afterReconnect.contains { if case .expectDelivery = $0 { true } else { false } })
        // A 409 says only that an earlier post took the key, on whichever connection.
        _ = story.send("n2")
        _ = story.posted("n2", "n2", .unknown(conflict: true))
        let afterConflict = story.lookedUp("n2", .found(Story.stored("M2", key: "n2")))
        #expect(afterConflict.announced == ["n2 sent"])
        #expect(!afterConflict.contains { if case .expectDelivery = $0 { true } else { false } })
    }

    @Test("a network failure, not found: the same key again after 1 s, 2 s … — the server refuses it if it did arrive")
    func networkFailureSameKey() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        _ = story.posted("n1", "n1", .unknown(conflict: false))
        let missing = story.lookedUp("n1", .notFound)
        #expect(missing.watches == [.watch(ticket: 1, at: .seconds(1))])
        #expect(story.state("n1") == .sending, "the outcome is still open")
        #expect(story.advance(.seconds(1), firing: 1).requests == ["post n1 on 1"])
        _ = story.posted("n1", "n1", .unknown(conflict: false))
        #expect(story.lookedUp("n1", .notFound).watches == [.watch(ticket: 2, at: .seconds(3))])
        #expect(story.record("n1")?.attempt == 1)
    }

    @Test("a 409 found: sent, not failed")
    func conflictFound() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        #expect(story.posted("n1", "n1", .unknown(conflict: true)).requests == ["look up n1 in C after \(Story.floor)"])
        let found = story.lookedUp("n1", .found(Story.stored("M1", key: "n1")))
        #expect(found.announced == ["n1 sent"])
    }

    @Test("a 409 not found: looked for once more 2 s later, then posted once with a new key, persisted first")
    func conflictNotFound() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        _ = story.posted("n1", "n1", .unknown(conflict: true))
        #expect(story.lookedUp("n1", .notFound).watches == [.watch(ticket: 1, at: .seconds(2))])
        #expect(story.advance(.seconds(2), firing: 1).requests == ["look up n1 in C after \(Story.floor)"])
        let second = story.lookedUp("n1", .notFound)
        #expect(second.requests == ["post n1.2 on 1"])
        let persisted = second.compactMap { if case .persist(let record) = $0 { record } else { nil } }
        #expect(persisted.last?.attempt == 2 && persisted.last?.posted == true)
        // Its echo carries the new key: the entry is found by it.
        #expect(story.outbox.delivered(Story.stored("M1", key: "n1.2"), now: story.now).announced == ["n1 sent"])
    }

    @Test("a look-up that fails is tried again later; the message is never posted in its place")
    func lookupFails() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        _ = story.posted("n1", "n1", .unknown(conflict: true))
        #expect(story.lookedUp("n1", .failed).watches == [.watch(ticket: 1, at: .seconds(1))])
        #expect(story.advance(.seconds(1), firing: 1).requests == ["look up n1 in C after \(Story.floor)"])
    }

    @Test("a slowmode refusal: queued with retry_after, waited out (plus a second), then posted once with a new key")
    func slowmodeRefusal() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        let refused = story.posted("n1", "n1", .slowmode(retryAfter: .seconds(20)))
        #expect(refused.first == .slowmodeRefused(channel: "C", retryAfter: .seconds(20)))
        #expect(refused.watches == [.watch(ticket: 1, at: .seconds(21))])
        #expect(story.state("n1") == .queued(retryAfter: .seconds(20)))
        #expect(story.record("n1")?.attempt == 2 && story.record("n1")?.posted == false)
        #expect(refused.requests.isEmpty)
        #expect(story.advance(.seconds(21), firing: 1).requests == ["post n1.2 on 1"])
    }

    @Test("a known slowmode is waited out before posting; its end lets the message go at once")
    func knownSlowmode() {
        var story = Story()
        _ = story.connect()
        _ = story.outbox.slowmode(channel: "C", until: .seconds(30), now: story.now)
        let queued = story.send("n1")
        #expect(queued.requests.isEmpty)
        #expect(queued.watches == [.watch(ticket: 1, at: .seconds(30))])
        #expect(story.state("n1") == .queued(retryAfter: .seconds(30)))
        let ended = story.outbox.slowmode(channel: "C", until: nil, now: story.now)
        #expect(ended.contains(.unwatch(ticket: 1)))
        #expect(ended.requests == ["post n1 on 1"])
    }

    @Test("a definite refusal fails with its reason; the channel's next message goes; resend uses a new key")
    func definiteRefusal() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        #expect(story.send("n2").requests.isEmpty, "one at a time per channel")
        let failure = OutboxEntry.Failure(code: .api(.missingPermission), message: "no SendMessage")
        let refused = story.posted("n1", "n1", .refused(failure))
        #expect(story.state("n1") == .failed(failure))
        #expect(refused.requests == ["post n2 on 1"])
        #expect(refused.contains(.persist(story.record("n1")!)))
        let (answer, resent) = story.outbox.resend("n1", now: story.now)
        #expect(answer == .done)
        #expect(resent.requests == ["post n1.2 on 1"], "its place is before n2's, and the channel is free")
    }

    @Test("messages go one at a time per channel in queue order, channels side by side")
    func perChannelOrder() {
        var story = Story()
        _ = story.send("a1", to: "A")
        _ = story.send("a2", to: "A")
        _ = story.send("b1", to: "B")
        #expect(story.connect().requests == ["post a1 on 1", "post b1 on 1"])
        #expect(
            story.posted("a1", "a1", .stored(Story.stored("M1", key: "a1", channel: "A"))).requests == ["post a2 on 1"])
    }

    @Test("rate limited or a session refused: the same key later, the key never consumed")
    func later() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        #expect(story.posted("n1", "n1", .later(.seconds(5))).watches == [.watch(ticket: 1, at: .seconds(5))])
        #expect(story.state("n1") == .sending)
        #expect(story.advance(.seconds(5), firing: 1).requests == ["post n1 on 1"])
    }

    @Test("without the API (offline), nothing starts; a post in flight still reports, and its look-up waits")
    func offline() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        _ = story.connect(nil)
        let unknown = story.posted("n1", "n1", .unknown(conflict: false))
        #expect(unknown.requests.isEmpty)
        #expect(story.connect(2).requests == ["look up n1 in C after \(Story.floor)"])
    }

    @Test("not CONNECTED but the API may answer (the socket refused): posts go, and no echo is awaited for them")
    func postsWithoutSocket() {
        var story = Story()
        #expect(story.outbox.sessionChanged(connected: nil, mayPost: true, now: story.now).isEmpty)
        #expect(story.send("n1").requests == ["post n1 on nil"])
        let stored = story.posted("n1", "n1", .stored(Story.stored("M1", key: "n1")))
        #expect(stored.announced == ["n1 sent"])
        #expect(!stored.contains { if case .expectDelivery = $0 { true } else { false } }, "no socket owes it")
        // CONNECTED: a post now is owed by the socket.
        _ = story.outbox.sessionChanged(connected: 3, mayPost: true, now: story.now)
        #expect(story.send("n2").requests == ["post n2 on 3"])
        let owed = story.posted("n2", "n2", .stored(Story.stored("M2", key: "n2")))
        #expect(owed.contains(.expectDelivery(key: "n2", generation: 3)))
    }

    @Test(
        "a look-up the server refuses for good ends the entry failed, 'may have been sent': no more look-ups, no post, the channel goes on"
    )
    func lookUpRefused() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        _ = story.send("n2")
        _ = story.posted("n1", "n1", .unknown(conflict: false))
        let refusal = OutboxEntry.Failure(code: .api(.missingPermission), message: "ReadMessageHistory")
        let refused = story.lookedUp("n1", .refused(refusal))
        #expect(refused.announced == ["n1 failed", "n2 sending"])
        #expect(refused.requests == ["post n2 on 1"], "the next entry goes; n1 is neither looked up nor posted")
        guard case .failed(let failure)? = story.state("n1") else {
            Issue.record("not failed")
            return
        }
        #expect(failure.code == .api(.missingPermission))
        #expect(failure.mayHaveBeenSent)
        #expect(story.record("n1")?.failure?.mayHaveBeenSent == true, "kept in the store")
    }

    @Test("a post that began before a reconnect is not watched on the new connection")
    func stalePostNotWatched() {
        var story = Story()
        _ = story.connect(1)
        _ = story.send("n1")
        _ = story.connect(nil)
        _ = story.connect(2)
        let stored = story.posted("n1", "n1", .stored(Story.stored("M1", key: "n1")))
        #expect(stored.announced == ["n1 sent"])
        #expect(!stored.contains { if case .expectDelivery = $0 { true } else { false } })
    }

    @Test("restored from the store: a posted entry is looked for first, a fresh one posted, a failed one left")
    func restore() {
        var story = Story()
        let failure = Outbox.Record.Failure(code: .api(.emptyMessage), message: "empty")
        let records = [
            Outbox.Record(nonce: "fresh", channel: "A", position: 3, floor: Story.floor),
            Outbox.Record(nonce: "posted", channel: "B", position: 1, attempt: 2, posted: true, floor: Story.floor),
            Outbox.Record(nonce: "failed", channel: "C", position: 2, floor: Story.floor, failure: failure),
        ]
        let restored = story.outbox.restore(records, now: story.now)
        #expect(restored.announced == ["posted sending", "failed failed", "fresh queued"])
        #expect(story.outbox.publicEntries.map(\.nonce) == ["posted", "failed", "fresh"])
        #expect(story.connect().requests == ["look up posted in B after \(Story.floor)", "post fresh on 1"])
        #expect(story.send("next").isEmpty == false)
        #expect(story.record("next")?.position == 4)
    }

    @Test("records take their positions when made: a send that took its position first is queued first; a nonce once")
    func positions() {
        var story = Story()
        let first = story.outbox.makeRecord(
            nonce: "a", channel: "C", message: Story.message(nonce: "a"), floor: Story.floor)
        let second = story.outbox.makeRecord(
            nonce: "b", channel: "C", message: Story.message(nonce: "b"), floor: Story.floor)
        // The second's store write finished first.
        _ = story.outbox.enqueue(second, now: story.now)
        _ = story.outbox.enqueue(first, now: story.now)
        #expect(story.outbox.publicEntries.map(\.nonce) == ["a", "b"])
        #expect(story.outbox.enqueue(first, now: story.now).isEmpty, "queued once")
        #expect(story.connect().requests == ["post a on 1"])
    }

    @Test("discard drops a queued or failed entry, never one being sent; unknown nonces are refused")
    func discard() {
        var story = Story()
        _ = story.send("n1")
        let (answer, actions) = story.outbox.discard("n1")
        #expect(answer == .done)
        #expect(actions == [.remove(nonce: "n1")])
        _ = story.send("n2")
        _ = story.connect()
        #expect(story.outbox.discard("n2").0 == .refused("n2 is being sent"))
        #expect(story.outbox.discard("nope").0 == .refused("no entry nope in the outbox"))
        #expect(story.outbox.resend("n2", now: story.now).0 == .refused("n2 has not failed"))
    }

    @Test("a server that refuses every key ends the entry failed (tooManyAttempts), not in an endless loop")
    func tooManyAttempts() {
        var story = Story()
        _ = story.connect()
        _ = story.send("n1")
        var ticket: UInt64 = 0
        for attempt in 1..<Outbox.maximumAttempts {
            _ = story.posted("n1", Outbox.key(nonce: "n1", attempt: attempt), .slowmode(retryAfter: .seconds(1)))
            ticket += 1
            _ = story.advance(.seconds(2), firing: ticket)
        }
        let last = story.posted(
            "n1", Outbox.key(nonce: "n1", attempt: Outbox.maximumAttempts), .slowmode(retryAfter: .seconds(1)))
        #expect(last.announced == ["n1 failed"])
        guard case .failed(let failure) = story.state("n1") else {
            Issue.record("not failed")
            return
        }
        #expect(failure.code == .tooManyAttempts)
    }

    @Test("keys: the nonce, then NONCE.n; a message's nonce names an entry only by one of its keys")
    func keys() {
        #expect(Outbox.key(nonce: "abc", attempt: 1) == "abc")
        #expect(Outbox.key(nonce: "abc", attempt: 12) == "abc.12")
        #expect(Outbox.key("abc", belongsTo: "abc"))
        #expect(Outbox.key("abc.2", belongsTo: "abc"))
        #expect(!Outbox.key("abcd", belongsTo: "abc"))
        #expect(!Outbox.key("abc.", belongsTo: "abc"))
        #expect(!Outbox.key("abc.2x", belongsTo: "abc"))
        #expect(!Outbox.key("ab", belongsTo: "abc"))
        #expect(OutboxEngine.isUsableNonce(UUID().uuidString))
        #expect(!OutboxEngine.isUsableNonce("a.b"))
        #expect(!OutboxEngine.isUsableNonce(String(repeating: "k", count: 49)))
        #expect(!OutboxEngine.isUsableNonce(""))
    }

    @Test("a failed record keeps its code as the name earlier releases stored, and reads theirs as a typed code")
    func storedFailureCode() throws {
        // A record as the previous release wrote it into the store's outbox table (its code a JSON string).
        let written = Data(
            (#"{"version":1,"nonce":"n1","channel":"C","content":"hi","position":1,"attempt":3,"posted":true,"#
                + #""floor":"01HFLOOR000000000000000000","failure":{"code":"MissingPermission","message":"no"}}"#)
                .utf8)
        let record = try JSONDecoder().decode(Outbox.Record.self, from: written)
        let failure = try #require(record.failure)
        #expect(failure.code == .api(.missingPermission))
        #expect(failure.mayHaveBeenSent == nil)
        let unknown = try JSONDecoder().decode(
            Outbox.Record.Failure.self, from: Data(#"{"code":"SomeNewKind","message":"m"}"#.utf8))
        #expect(unknown.code == OutboxEntry.Failure.Code(rawValue: "SomeNewKind"), "an unknown kind is kept")

        let rewritten = try JSONSerialization.jsonObject(with: JSONEncoder().encode(record)) as? [String: Any]
        let stored = try #require(rewritten?["failure"] as? [String: Any])
        #expect(stored["code"] as? String == "MissingPermission", "the stored form is the code's name")
        #expect(try JSONDecoder().decode(Outbox.Record.self, from: JSONEncoder().encode(record)) == record)
    }

    @Test(
        "how a post's failure is read: 409 of any shape unknown, no answer unknown, slowmode waited, definite refused",
        arguments: [
            (
                StoatAPIError(code: .duplicateNonce, message: "", status: 409),
                Outbox.PostOutcome.unknown(conflict: true)
            ),
            (
                StoatAPIError(code: .duplicateNonce, message: "", kind: "DuplicateNonce", status: 409),
                .unknown(conflict: true)
            ),
            (StoatAPIError(code: .unexpectedStatus, message: "", status: 409), .unknown(conflict: true)),
            (StoatAPIError(code: .network, message: ""), .unknown(conflict: false)),
            (StoatAPIError(code: .timeout, message: ""), .unknown(conflict: false)),
            (StoatAPIError(code: .malformedResponse, message: "", status: 200), .unknown(conflict: false)),
            (
                StoatAPIError(code: .internalError, message: "", kind: "InternalError", status: 500),
                .unknown(conflict: false)
            ),
            (StoatAPIError(code: .unexpectedStatus, message: "", status: 502), .unknown(conflict: false)),
            (
                StoatAPIError(code: .inSlowmode, message: "", kind: "InSlowmode", status: 429, retryAfter: .seconds(7)),
                .slowmode(retryAfter: .seconds(7))
            ),
            (
                StoatAPIError(
                    code: .inSlowmode, message: "", kind: "InSlowmode", status: 429, retryAfter: .seconds(1e12)),
                .slowmode(retryAfter: Outbox.longestSlowmodeWait)
            ),
            (StoatAPIError(code: .rateLimited, message: "", status: 429, retryAfter: .seconds(3)), .later(.seconds(3))),
            (StoatAPIError(code: .invalidSession, message: "", status: 401), .later(nil)),
            (
                StoatAPIError(code: .missingPermission, message: "m", kind: "MissingPermission", status: 403),
                .refused(OutboxEntry.Failure(code: .api(.missingPermission), message: "m"))
            ),
            (
                StoatAPIError(code: .emptyMessage, message: "e", kind: "EmptyMessage", status: 422),
                .refused(OutboxEntry.Failure(code: .api(.emptyMessage), message: "e"))
            ),
            (
                StoatAPIError(code: .notFound, message: "n", kind: "NotFound", status: 404),
                .refused(OutboxEntry.Failure(code: .api(.notFound), message: "n"))
            ),
            (
                StoatAPIError(code: .redirectRefused, message: "r"),
                .refused(OutboxEntry.Failure(code: .api(.redirectRefused), message: "r"))
            ),
        ])
    func outcomes(error: StoatAPIError, expected: Outbox.PostOutcome) {
        #expect(Outbox.PostOutcome(error) == expected)
    }

    @Test("the look-up's floor: five minutes before the newest known message, or the beginning of time")
    func floor() {
        let newest = "01HZZZZZZZ0000000000000000"
        let milliseconds = ULID.milliseconds(of: newest)!
        #expect(OutboxEngine.floor(newest) == ULID.floor(milliseconds: milliseconds - 300_000))
        #expect(ULID.milliseconds(of: OutboxEngine.floor(newest)) == milliseconds - 300_000)
        #expect(OutboxEngine.floor(nil) == String(repeating: "0", count: 26))
        #expect(OutboxEngine.floor("not a ulid") == String(repeating: "0", count: 26))
        #expect(OutboxEngine.floor("00000000010000000000000000") == String(repeating: "0", count: 26), "never below 0")
        let encoded = ULID.floor(milliseconds: 1_750_000_000_123)
        #expect(ULID.milliseconds(of: encoded) == 1_750_000_000_123)
        #expect(encoded.hasSuffix(String(repeating: "0", count: 16)))
    }

    @Test(
        "the delivery check: quiet and caught up only; a first reading notes (with nothing held), a later one owes what the socket did not bring, once"
    )
    func probe() {
        func message(_ id: String, webhook: Bool = false) -> Message {
            Message(
                id: id, channel: "C", author: "x", webhook: webhook ? Message.Webhook(name: "hook") : nil)
        }
        var probe = DeliveryProbe()
        let interval = Duration.seconds(15)
        probe.connectionChanged(1, now: .zero)
        #expect(
            probe.nextCheck(generation: 1, now: .seconds(15), interval: interval, candidates: ["C"]) == nil,
            "not caught up yet")
        probe.caughtUpCompleted(generation: 1)
        #expect(
            probe.nextCheck(generation: 1, now: .seconds(14), interval: interval, candidates: ["C"]) == nil,
            "not quiet for a whole interval")
        #expect(probe.nextCheck(generation: 1, now: .seconds(15), interval: interval, candidates: ["C", "D"]) == "C")
        #expect(probe.nextCheck(generation: 1, now: .seconds(30), interval: interval, candidates: ["C", "D"]) == "D")
        #expect(
            probe.checked(channel: "C", page: [message("01A")], generation: 1, newestHeld: nil) { _ in false }
                == .init(),
            "a first reading of a channel the cache holds nothing of only notes")
        #expect(
            probe.checked(channel: "C", page: [message("01A")], generation: 1, newestHeld: nil) { _ in false }
                == .init())
        _ = probe.delivered(message("01B"))
        #expect(
            probe.checked(channel: "C", page: [message("01B")], generation: 1, newestHeld: nil) { _ in true }
                == .init(),
            "delivered and held")
        let hook = message("01C", webhook: true)
        #expect(
            probe.checked(channel: "C", page: [message("01D"), hook], generation: 1, newestHeld: nil) { _ in false }
                == .init(owed: "01D", webhookMessages: [hook]))
        #expect(
            probe.nextCheck(generation: 1, now: .seconds(60), interval: interval, candidates: ["C"]) == nil,
            "one owed at a time")
        #expect(probe.delivered(message("01D")) == "01D")
        probe.eventArrived(now: .seconds(61))
        #expect(
            probe.nextCheck(generation: 1, now: .seconds(70), interval: interval, candidates: ["C"]) == nil,
            "an event: not quiet")
        // Another connection: what was read stays read, so nothing is owed twice.
        probe.connectionChanged(2, now: .seconds(80))
        probe.caughtUpCompleted(generation: 2)
        #expect(
            probe.checked(channel: "C", page: [message("01D")], generation: 2, newestHeld: nil) { _ in false }
                == .init())
        #expect(
            probe.checked(channel: "C", page: [message("01D"), message("01E")], generation: 2, newestHeld: nil) { _ in
                false
            }
                == .init(owed: "01E"))
    }

    @Test("the delivery check: a first reading owes what is newer than the newest message the cache holds")
    func probeFirstReading() {
        func message(_ id: String, channel: String = "C") -> Message {
            Message(id: id, channel: channel, author: "x")
        }
        var probe = DeliveryProbe()
        probe.connectionChanged(1, now: .zero)
        probe.caughtUpCompleted(generation: 1)
        // The socket went deaf after 01B: 01C and 01D were posted since, and the cache holds up to 01B.
        let held: Set = ["01A", "01B"]
        let page = [message("01A"), message("01B"), message("01C"), message("01D")]
        #expect(
            probe.checked(channel: "C", page: page, generation: 1, newestHeld: "01B") { held.contains($0) }
                == .init(owed: "01C"))
        // Delivered before the reading: not owed (the socket brought it, though the cache trimmed it since).
        var other = DeliveryProbe()
        other.connectionChanged(1, now: .zero)
        other.caughtUpCompleted(generation: 1)
        _ = other.delivered(message("01C", channel: "D"))
        #expect(
            other.checked(
                channel: "D", page: [message("01B", channel: "D"), message("01C", channel: "D")], generation: 1,
                newestHeld: "01B"
            ) { $0 == "01B" } == .init())
        // A channel the cache knows empty: its first message is newer.
        #expect(
            other.checked(channel: "F", page: [message("01A", channel: "F")], generation: 1, newestHeld: "") { _ in
                false
            } == .init(owed: "01A"))
        _ = other.delivered(message("01A", channel: "F"))
        // What the cache holds is not owed, whatever a first reading shows.
        #expect(
            other.checked(
                channel: "E", page: [message("01A", channel: "E"), message("01B", channel: "E")], generation: 1,
                newestHeld: "01A"
            ) { _ in true } == .init())
    }
}
