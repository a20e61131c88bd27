import Foundation
import Testing

@testable import LifelineStoat

/// The outbox's decisions for actions on messages: an edit, a deletion, a reaction, an unreaction.
@Suite("The outbox's decisions for actions on messages")
struct OutboxActionTests {
    /// An outbox and its clock; one fact per call.
    struct Story {
        var outbox = Outbox()
        var now: Duration = .zero

        mutating func act(
            _ kind: OutboxEntry.Kind, _ nonce: String, on target: String = "M1", text: String? = nil,
            emoji: String? = nil
        ) -> [Outbox.Action] {
            let record = outbox.makeActionRecord(
                nonce: nonce, kind: kind, channel: "C", target: target, text: text, emoji: emoji, user: "me")
            return outbox.enqueue(record, now: now)
        }

        mutating func connect() -> [Outbox.Action] { outbox.connectionChanged(1, now: now) }

        mutating func acted(_ nonce: String, _ outcome: Outbox.ActionOutcome) -> [Outbox.Action] {
            outbox.acted(nonce, outcome: outcome, now: now)
        }

        mutating func confirmed(_ nonce: String, _ result: Outbox.ConfirmResult) -> [Outbox.Action] {
            outbox.confirmed(nonce, result: result, now: now)
        }

        func state(_ nonce: String) -> OutboxEntry.State? {
            outbox.publicEntries.first { $0.nonce == nonce }?.state
        }
    }

    static func message(id: String = "M1", content: String = "old", reactions: [String: [String]]? = nil) -> Message {
        Message(id: id, channel: "C", author: "me", content: content, reactions: reactions)
    }

    @Test("offline an edit waits queued; once the API may answer it is persisted as made, then made once")
    func queuedThenMade() {
        var story = Story()
        let queued = story.act(.edit, "e1", text: "new")
        #expect(queued.actionRequests.isEmpty)
        #expect(story.state("e1") == .queued(retryAfter: nil))
        #expect(story.outbox.publicEntries.first?.kind == .edit)
        #expect(story.outbox.publicEntries.first?.target == "M1")
        let connected = story.connect()
        #expect(connected.actionRequests == ["act edit e1"])
        let persistIndex = connected.firstIndex {
            if case .persist(let record) = $0 { record.posted } else { false }
        }
        let actIndex = connected.firstIndex { if case .act = $0 { true } else { false } }
        #expect(persistIndex != nil && actIndex != nil && persistIndex! < actIndex!, "persisted before the request")
        let done = story.acted("e1", .applied(Self.message(content: "new")))
        #expect(done.announced == ["e1 sent"])
        #expect(done.contains(.remove(nonce: "e1")))
        #expect(done.contains { if case .applyToCache(let record, _) = $0 { record.nonce == "e1" } else { false } })
        #expect(story.outbox.entries.isEmpty)
    }

    @Test("a lost answer is read back first: an edit the message already shows is sent, never made again")
    func lostAnswerFoundApplied() {
        var story = Story()
        _ = story.act(.edit, "e1", text: "new")
        _ = story.connect()
        let lost = story.acted("e1", .unknown)
        #expect(lost.actionRequests == ["confirm e1"])
        #expect(story.state("e1") == .sending)
        let found = story.confirmed("e1", .message(Self.message(content: "new")))
        #expect(found.actionRequests.isEmpty, "nothing repeated")
        #expect(found.announced == ["e1 sent"])
    }

    @Test("a lost answer read back not applied is made again, once; a failed read is read again, never made")
    func lostAnswerNotApplied() {
        var story = Story()
        _ = story.act(.react, "r1", emoji: "👍")
        _ = story.connect()
        _ = story.acted("r1", .unknown)
        let failedRead = story.confirmed("r1", .failed)
        #expect(failedRead.actionRequests.isEmpty)
        guard
            case .watch(let ticket, let at)? = failedRead.first(where: { if case .watch = $0 { true } else { false } })
        else {
            Issue.record("no wake-up after a failed read")
            return
        }
        story.now = at
        #expect(story.outbox.wake(ticket: ticket, now: story.now).actionRequests == ["confirm r1"])
        let notThere = story.confirmed("r1", .message(Self.message(reactions: ["👍": ["someone else"]])))
        #expect(notThere.actionRequests == ["act react r1"])
        #expect(story.acted("r1", .applied(nil)).announced == ["r1 sent"])
    }

    @Test("a reaction read back with the user's reaction is sent; an unreaction read back without it is sent")
    func reactionsReadBack() {
        var story = Story()
        _ = story.act(.react, "r1", emoji: "👍")
        _ = story.act(.unreact, "u1", on: "M2", emoji: "🎉")
        _ = story.connect()
        _ = story.acted("r1", .unknown)
        #expect(story.confirmed("r1", .message(Self.message(reactions: ["👍": ["me"]]))).announced.contains("r1 sent"))
        _ = story.acted("u1", .unknown)
        let other = Self.message(id: "M2", reactions: ["🎉": ["someone else"]])
        #expect(story.confirmed("u1", .message(other)).announced == ["u1 sent"])
    }

    @Test("a delete or unreact answered NotFound is sent; a delete read back gone is sent; an edit of a gone one fails")
    func alreadyApplied() {
        let notFound = StoatAPIError(code: .notFound, message: "gone", kind: "NotFound", status: 404)
        #expect(Outbox.ActionOutcome(notFound, kind: .delete) == .alreadyApplied)
        #expect(Outbox.ActionOutcome(notFound, kind: .unreact) == .alreadyApplied)
        guard case .refused(let failure) = Outbox.ActionOutcome(notFound, kind: .edit) else {
            Issue.record("an edit of a gone message is not refused")
            return
        }
        #expect(failure.code == .api(.notFound))
        let dropped = StoatAPIError(code: .network, message: "connection reset")
        #expect(Outbox.ActionOutcome(dropped, kind: .delete) == .unknown)

        var story = Story()
        _ = story.act(.delete, "d1")
        _ = story.act(.edit, "e1", on: "M2", text: "new")
        _ = story.connect()
        #expect(story.acted("d1", .alreadyApplied).announced.contains("d1 sent"))
        _ = story.acted("e1", .unknown)
        let gone = story.confirmed("e1", .gone)
        #expect(gone.announced == ["e1 failed"])
        guard case .failed(let editFailure)? = story.state("e1") else {
            Issue.record("the edit did not fail")
            return
        }
        #expect(editFailure.code == .api(.notFound))
    }

    @Test("a refusal ends the entry failed with the server's reason; it waits for the user, the channel goes on")
    func refused() {
        var story = Story()
        _ = story.act(.delete, "d1")
        _ = story.act(.react, "r1", emoji: "👍")
        _ = story.connect()
        let refusal = StoatAPIError(
            code: .missingPermission, message: "ManageMessages", kind: "MissingPermission", status: 403)
        let refused = story.acted("d1", Outbox.ActionOutcome(refusal, kind: .delete))
        #expect(refused.announced.first == "d1 failed")
        #expect(refused.actionRequests == ["act react r1"], "the next entry of the channel goes")
        guard case .failed(let failure)? = story.state("d1") else {
            Issue.record("not failed")
            return
        }
        #expect(failure.code == .api(.missingPermission))
        #expect(failure.mayHaveBeenSent == false)
    }

    @Test("an action restored after its request was made is read back before anything is repeated")
    func restoredReadsBack() {
        var story = Story()
        _ = story.act(.unreact, "u1", emoji: "👍")
        let started = story.connect()
        guard case .persist(let record)? = started.first(where: { if case .persist = $0 { true } else { false } })
        else {
            Issue.record("not persisted")
            return
        }
        var restarted = Story()
        let restored = restarted.outbox.restore([record], now: .zero) + restarted.connect()
        #expect(restored.actionRequests == ["confirm u1"])
        #expect(restarted.outbox.publicEntries.first?.kind == .unreact)
        #expect(restarted.outbox.publicEntries.first?.emoji == "👍")
    }

    @Test("an action's record is format 2 and names its kind; a send's stays format 1 without one")
    func recordFormats() throws {
        var outbox = Outbox()
        let action = outbox.makeActionRecord(
            nonce: "e1", kind: .edit, channel: "C", target: "M1", text: "new", user: "me")
        let send = outbox.makeRecord(
            nonce: "s1", channel: "C", message: OutgoingMessage(content: "hi", idempotencyKey: "s1"), floor: "F")
        let actionJSON = try JSONSerialization.jsonObject(with: JSONEncoder().encode(action)) as? [String: Any]
        let sendJSON = try JSONSerialization.jsonObject(with: JSONEncoder().encode(send)) as? [String: Any]
        #expect(actionJSON?["version"] as? Int == 2)
        #expect(actionJSON?["kind"] as? String == "edit")
        #expect(sendJSON?["version"] as? Int == 1)
        #expect(sendJSON?["kind"] == nil)
        // A send as a release before actions wrote it reads as a send.
        let previous = Data(
            #"{"version":1,"nonce":"old","channel":"C","content":"hi","position":3,"attempt":1,"posted":false,"floor":"F"}"#
                .utf8)
        let decoded = try JSONDecoder().decode(Outbox.Record.self, from: previous)
        #expect(decoded.entryKind == .send)
        #expect(decoded.message.content == "hi")
    }
}

extension [Outbox.Action] {
    /// The action requests among the actions: `act KIND NONCE`, `confirm NONCE`.
    var actionRequests: [String] {
        compactMap { action in
            switch action {
            case .act(let record): "act \(record.entryKind.rawValue) \(record.nonce)"
            case .confirm(let record): "confirm \(record.nonce)"
            default: nil
            }
        }
    }
}
