import Foundation
import Lifeline
import LifelineCore
import LifelineStore
import LifelineTesting
import StoatReferenceServer
import Synchronization
import Testing

@testable import LifelineStoat
@testable import LifelineStoatStore

/// Clients and a reference server that share one test clock (as `SharedClockHarness`), with a device network
/// the test sets, an optional account store, and clients started and stopped as the test says (a restart).
final class OutboxHarness: Sendable {
    let clock = TestClock()
    let server: ReferenceServer
    /// A member of the lobby (its owner is above slowmodes).
    let account: SeededAccount
    let network = ManualNetworkMonitor(.online)
    let stores = TemporaryStore()
    /// The API, for what the test does beside the client (its clock is the machine's).
    let api: StoatAPI
    private let running = Mutex<[Task<Void, Never>]>([])

    /// A harness whose server's events server is `events` (the gateway's idle timeout off: the test clock
    /// stands still between the test's steps).
    init(events: ReferenceServer.EventsServer = .bonfire) async throws {
        let clock = clock
        var configuration = ReferenceServer.Configuration(now: {
            let (seconds, attoseconds) = clock.now.offset.components
            return SharedClockHarness.start.addingTimeInterval(Double(seconds) + Double(attoseconds) * 1e-18)
        })
        configuration.events = events
        if events == .gateway { configuration.gatewayIdleTimeout = nil }
        server = try await ReferenceServer.start(configuration)
        account = try await server.addUser(username: "member")
        try await server.join(userID: account.userID, serverID: server.lobbyServerID)
        api = StoatAPI(baseURL: server.apiURL, requestTimeout: .failureBound)
    }

    var credentials: SessionCredentials { SessionCredentials(token: account.token, userID: account.userID) }

    /// A client, running; `watch` is its delivery deadline, `check` its idle delivery check.
    /// `catchUp` is its catch-up policy.
    func client(
        watch: DeliveryWatchPolicy = .standard, check: Duration? = nil, catchUp: CatchUpPolicy = .standard
    ) -> (StoatClient, SnapshotRecorder) {
        var configuration = StoatClient.Configuration()
        configuration.catchUp = catchUp
        configuration.connection.heartbeatInterval = .seconds(86_400)
        configuration.session.deliveryWatch = watch
        configuration.deliveryCheck = check
        configuration.requestTimeout = .failureBound  // a REST call's exchange runs on the wall clock
        let client = StoatClient(
            apiURL: server.apiURL, configuration: configuration, network: network, clock: clock,
            random: SeededRandomNumberGenerator(seed: 11))
        let recorder = SnapshotRecorder(client.session.states)
        running.withLock { $0.append(Task { await client.run() }) }
        return (client, recorder)
    }

    /// Stops every client started so far (each writes what it holds to its store first).
    func stopClients() async {
        let tasks = running.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    func stop() async {
        await stopClients()
        await server.stop()
    }

    /// The messages in a channel with this content, as the server lists them.
    func messages(in channel: String, content: String) async throws -> [Message] {
        let page = try await api.messages(in: channel, query: .latest(limit: 100), credentials)
        return page.messages.filter { $0.content == content }
    }

    /// Waits until a channel's cached history satisfies `condition`.
    func history(
        of client: StoatClient, _ channel: String, _ condition: @escaping @Sendable (ChannelHistory) -> Bool
    ) async -> ChannelHistory? {
        for await history in client.historyUpdates(of: channel) where condition(history) { return history }
        return nil
    }

    /// Moves the shared clock to `seconds`.
    func advance(to seconds: Double) {
        clock.advance(to: TestClock.Instant(offset: .milliseconds(Int64((seconds * 1000).rounded()))))
    }
}

/// The account's outbox, against the reference server: every send delivered exactly once.
@Suite("The outbox against the reference server", .hangBound)
struct StoatOutboxTests {
    @Test("a message sent offline is kept in the store, and after a restart is delivered once")
    func offlineRestart() async throws {
        let harness = try await OutboxHarness()
        let (first, recorder) = harness.client()
        let email = "outbox@example.com"
        let password = "outbox password 1"
        let member = try await harness.server.addAccount(email: email, password: password, username: "outboxer")
        try await harness.server.join(userID: member.userID, serverID: harness.server.lobbyServerID)
        _ = try #require(await first.signIn(to: harness.stores.store, email: email, password: password).database)
        await recorder.next(.connected)
        harness.network.set(.offline)
        await recorder.next { $0.network == .offline }
        _ = await harness.server.dropAllSockets()
        await recorder.next(.offline)
        let general = harness.server.lobbyChannelID
        let entry = try await first.send(OutgoingMessage(content: "written offline"), to: general)
        #expect(entry.state == .queued(retryAfter: nil))
        await harness.stopClients()

        harness.network.set(.online)
        let (second, secondRecorder) = harness.client()
        var events = second.outboxEvents.makeAsyncIterator()
        let accounts = try harness.stores.store.accounts()
        _ = await second.signIn(to: harness.stores.store, account: accounts[0].id, password: password)
        guard case .changed(let restored)? = await events.next() else {
            Issue.record("nothing restored")
            return
        }
        #expect(restored.nonce == entry.nonce)
        #expect(restored.state == .queued(retryAfter: nil))
        await secondRecorder.next(.connected)
        guard case .sent(let id)? = await second.delivery(of: entry.nonce) else {
            Issue.record("not sent")
            return
        }
        let stored = try await harness.messages(in: general, content: "written offline")
        #expect(stored.map(\.id) == [id])
        #expect(stored.first?.nonce == entry.nonce)
        #expect(second.outbox.isEmpty)
        await harness.stop()
    }

    @Test("a lost answer on a deaf socket: looked for and found — sent once, never posted again")
    func lostAnswer() async throws {
        let harness = try await OutboxHarness()
        let (client, recorder) = harness.client()
        await client.resume(harness.credentials)
        await recorder.next(.connected)
        await harness.server.setDeaf(true)  // the echo cannot settle it: only the look-up can
        await harness.server.loseNextSendAnswers(1)
        let general = harness.server.lobbyChannelID
        let entry = try await client.send(OutgoingMessage(content: "answer lost"), to: general)
        guard case .sent(let id)? = await client.delivery(of: entry.nonce) else {
            Issue.record("not sent")
            return
        }
        #expect(await harness.server.socketCounters().lostSendAnswers == 1)
        let stored = try await harness.messages(in: general, content: "answer lost")
        #expect(stored.map(\.id) == [id])
        #expect(stored.first?.nonce == entry.nonce)
        #expect(client.cachedHistory(of: general).messages.contains { $0.id == id }, "the found message is cached")
        await harness.stop()
    }

    @Test("a 409 with Rocket's body for a message that exists: looked up, sent with its id, not failed")
    func conflictFound() async throws {
        let harness = try await OutboxHarness()
        let (client, recorder) = harness.client()
        await client.resume(harness.credentials)
        await recorder.next(.connected)
        let general = harness.server.lobbyChannelID
        // The socket hears nothing, so only the look-up can find the message.
        await harness.server.setDeaf(true)
        // The key was used by a post the server stored (from this user, whose answer this client never saw).
        let existing = try await harness.api.sendMessage(
            OutgoingMessage(content: "exists", idempotencyKey: "known-key"), in: general, harness.credentials
        ).id
        let entry = try await client.send(OutgoingMessage(content: "exists", idempotencyKey: "known-key"), to: general)
        #expect(await client.delivery(of: entry.nonce) == .sent(messageID: existing))
        #expect(try await harness.messages(in: general, content: "exists").count == 1)
        await harness.stop()
    }

    @Test("a 409 for a key consumed without a post: looked for twice, then sent once with a new key")
    func conflictNotFound() async throws {
        let harness = try await OutboxHarness()
        let (client, recorder) = harness.client()
        await client.resume(harness.credentials)
        await recorder.next(.connected)
        let general = harness.server.lobbyChannelID
        // The key was consumed by a post the route refused (an empty message): the guard took it first.
        await #expect(throws: StoatAPIError.self) {
            try await harness.api.sendMessage(
                OutgoingMessage(content: "", idempotencyKey: "spent-key"), in: general, harness.credentials)
        }
        var events = client.outboxEvents.makeAsyncIterator()
        let entry = try await client.send(
            OutgoingMessage(content: "second try", idempotencyKey: "spent-key"), to: general)
        // Queued, posted (409), looked for: not found; the second look waits 2 s on the client's clock.
        var states: [String] = []
        while let event = await events.next(), case .changed(let changed) = event {
            states.append(changed.state.name)
            if states.count == 2 { break }
        }
        #expect(states == ["queued", "sending"])
        let now = harness.clock.now
        let recheck = await harness.clock.nextSleep { $0 == now.advanced(by: Outbox.conflictRecheck) }
        #expect(try await harness.messages(in: general, content: "second try").isEmpty)
        harness.clock.advance(to: recheck)
        guard case .sent(let id)? = await client.delivery(of: entry.nonce) else {
            Issue.record("not sent")
            return
        }
        let stored = try await harness.messages(in: general, content: "second try")
        #expect(stored.map(\.id) == [id])
        #expect(stored.first?.nonce == "spent-key.2")
        await harness.stop()
    }

    @Test(
        "a slowmode refusal: queued with retry_after, waited out on the client's clock, then posted once with a new key"
    )
    func slowmodeRefusal() async throws {
        let harness = try await OutboxHarness()
        let (client, recorder) = harness.client(watch: .disabled)
        await client.resume(harness.credentials)
        await recorder.next(.connected)
        let channel = try await harness.server.addTextChannel(
            serverID: harness.server.lobbyServerID, name: "slow", slowmode: 30)
        // The user's slowmode starts from another device while this socket hears nothing of it: the outbox
        // does not know it, and its post is refused.
        await harness.server.setDeaf(true)
        _ = try await harness.server.postMessage(as: harness.account.userID, in: channel.id, content: "elsewhere")
        harness.advance(to: 10)
        var events = client.outboxEvents.makeAsyncIterator()
        let entry = try await client.send(OutgoingMessage(content: "after the slowmode"), to: channel.id)
        var waiting: Duration?
        while let event = await events.next() {
            guard case .changed(let changed) = event else { continue }
            if case .queued(let retryAfter?) = changed.state {
                waiting = retryAfter
                break
            }
        }
        #expect(waiting == .seconds(20), "the server's retry_after")
        #expect(try await harness.messages(in: channel.id, content: "after the slowmode").isEmpty)
        await harness.clock.waitForSleep(until: .init(offset: .seconds(31)))
        harness.advance(to: 30.9)
        #expect(client.outboxState(of: entry.nonce) == .queued(retryAfter: .seconds(20)), "not a moment early")
        harness.advance(to: 31)
        guard case .sent(let id)? = await client.delivery(of: entry.nonce) else {
            Issue.record("not sent")
            return
        }
        let stored = try await harness.messages(in: channel.id, content: "after the slowmode")
        #expect(stored.map(\.id) == [id])
        #expect(stored.first?.nonce == "\(entry.nonce).2", "the refused post consumed the first key")
        await harness.stop()
    }

    @Test("a deaf socket is noticed within the delivery deadline of the user's own send, and reconnected")
    func deafSocket() async throws {
        let harness = try await OutboxHarness()
        let (client, recorder) = harness.client()
        await client.resume(harness.credentials)
        await recorder.next(.connected)
        #expect(await harness.server.deafenSockets() == 1)
        let entry = try await client.send(OutgoingMessage(content: "anyone there?"), to: harness.server.lobbyChannelID)
        guard case .sent? = await client.delivery(of: entry.nonce) else {
            Issue.record("not sent")
            return
        }
        // The deadline: 15 s ± 20 %, armed once the answer came.
        let now = harness.clock.now
        let deadline = await harness.clock.nextSleep { deadline in
            let delay = now.duration(to: deadline)
            return delay >= .seconds(12) && delay < .seconds(18)
        }
        harness.clock.advance(to: deadline)
        let stalled = try #require(await recorder.next(.disconnected))
        let transition = try #require(stalled.transitions.first { $0.to == .disconnected })
        #expect(transition.from == .connected)
        #expect(transition.cause?.code == .temporary(.deliveryStalled))
        #expect(stalled.time <= .seconds(18))
        // The reconnect gets a socket that hears.
        let retry = try #require(client.session.snapshot.nextRetry)
        harness.clock.advance(to: .init(offset: retry))
        await recorder.next(.connected)
        try await harness.server.waitUntil(timeout: .failureBound) { _, counters in counters.liveSockets == 1 }
        await harness.stop()
    }

    @Test(
        "a logout forgets the outbox in memory: without a store its entries fail (loggedOut), with one they wait for the next sign-in"
    )
    func logout() async throws {
        let harness = try await OutboxHarness()
        let email = "logout@example.com"
        let password = "logout password 1"
        let leaver = try await harness.server.addAccount(email: email, password: password, username: "leaver")
        _ = try? await harness.server.join(userID: leaver.userID, serverID: harness.server.lobbyServerID)
        // A channel with a long slowmode: after a first message, the next waits in the outbox (the API answers, so
        // nothing else would keep it there: posts go whenever it may).
        let slow = try await harness.server.addTextChannel(
            serverID: harness.server.lobbyServerID, name: "slow", slowmode: 3_600
        ).id
        func queueBehindSlowmode(_ client: StoatClient, _ text: String) async throws -> OutboxEntry {
            let first = try await client.send(OutgoingMessage(content: "first of \(text)"), to: slow)
            guard case .sent? = await client.delivery(of: first.nonce) else {
                throw StoatClientError(code: .requestFailed, message: "the first message was not sent")
            }
            let entry = try await client.send(OutgoingMessage(content: text), to: slow)
            for await entries in client.outboxUpdates {
                if case .queued(let retryAfter?)? = entries.first(where: { $0.nonce == entry.nonce })?.state,
                    retryAfter > .zero
                {
                    break
                }
            }
            return entry
        }
        let (stored, storedRecorder) = harness.client()
        _ = try #require(await stored.signIn(to: harness.stores.store, email: email, password: password).database)
        await storedRecorder.next(.connected)
        let kept = try await queueBehindSlowmode(stored, "kept for later")
        await stored.session.logOut()
        await storedRecorder.next(.ready)
        #expect(stored.outbox.isEmpty, "forgotten in memory")
        var restored = stored.outboxEvents.makeAsyncIterator()
        _ = await stored.signIn(to: harness.stores.store, email: email, password: password)
        guard case .changed(let again)? = await restored.next() else {
            Issue.record("not restored")
            return
        }
        #expect(again.nonce == kept.nonce)
        #expect(again.state == .queued(retryAfter: nil))

        let (memory, memoryRecorder) = harness.client()
        await memory.resume(harness.credentials)
        await memoryRecorder.next(.connected)
        let queued = try await queueBehindSlowmode(memory, "never sent")
        var events = memory.outboxEvents.makeAsyncIterator()
        await memory.session.logOut()
        await memoryRecorder.next(.ready)
        var failure: OutboxEntry.Failure?
        while failure == nil, let event = await events.next() {
            if case .changed(let failed) = event, failed.nonce == queued.nonce, case .failed(let reason) = failed.state
            {
                failure = reason
            }
        }
        #expect(failure?.code == .loggedOut)
        #expect(failure?.mayHaveBeenSent == false, "it was waiting, not being sent")
        #expect(memory.outbox.isEmpty)
        await harness.stop()
    }

    @Test("an outbox row that cannot be read is reported and skipped; the others are sent")
    func corruptRow() async throws {
        let harness = try await OutboxHarness()
        let email = "rows@example.com"
        let password = "rows password 1"
        let member = try await harness.server.addAccount(email: email, password: password, username: "rows")
        try await harness.server.join(userID: member.userID, serverID: harness.server.lobbyServerID)
        let (first, firstRecorder) = harness.client()
        let database = try #require(
            await first.signIn(to: harness.stores.store, email: email, password: password).database)
        await firstRecorder.next(.connected)
        try await database.saveOutboxEntry(
            StoredOutboxEntry(nonce: "junk", position: 1, payload: Data("{not json".utf8)))
        let general = harness.server.lobbyChannelID
        let good = Outbox.Record(
            nonce: "good", channel: general, content: "kept", position: 2, floor: ULID.floor(milliseconds: 0))
        try await database.saveOutboxEntry(
            StoredOutboxEntry(nonce: "good", position: 2, payload: try JSONEncoder().encode(good)))
        await harness.stopClients()

        let (second, recorder) = harness.client()
        var events = second.outboxEvents.makeAsyncIterator()
        let accounts = try harness.stores.store.accounts()
        _ = await second.signIn(to: harness.stores.store, account: accounts[0].id, password: password)
        guard case .unreadable(let reason)? = await events.next() else {
            Issue.record("not reported")
            return
        }
        #expect(reason.contains("format"))
        await recorder.next(.connected)
        guard case .sent? = await second.delivery(of: "good") else {
            Issue.record("the readable entry was not sent")
            return
        }
        #expect(try await harness.messages(in: general, content: "kept").count == 1)
        await harness.stop()
    }
}

extension StoatClient {
    /// Sends through the outbox and waits until the server has it: the message as the cache holds it.
    func sendAndWait(_ message: OutgoingMessage, to channel: String) async throws -> Message {
        let entry = try await send(message, to: channel)
        switch await delivery(of: entry.nonce) {
        case .sent(let id)?:
            return try #require(cachedHistory(of: channel).messages.first { $0.id == id })
        case let other:
            throw OutboxTestFailure(state: other)
        }
    }
}

/// An outbox entry that did not end as a test expected.
struct OutboxTestFailure: Error, CustomStringConvertible {
    let state: OutboxEntry.State?
    var description: String { "the entry ended \(state.map { "\($0)" } ?? "unknown")" }
}
