import Foundation
import Lifeline
import LifelineCore
import LifelineStore
import LifelineTesting
import Observation
import StoatReferenceServer
import Synchronization
import Testing

@testable import LifelineStoat
@testable import LifelineStoatStore

/// Edits, deletions, reactions and unreactions through the outbox, against the reference server: each applied
/// exactly once, whatever the network does to the answers.
@Suite("Actions on messages through the outbox, against the reference server", .hangBound)
struct StoatOutboxActionTests {
    static let edit = "PATCH /channels/{id}/messages/{id}"
    static let delete = "DELETE /channels/{id}/messages/{id}"
    static let read = "GET /channels/{id}/messages/{id}"

    /// How many requests of `method` went to a reaction route.
    static func reactionRequests(_ counts: [String: Int], _ method: String) -> Int {
        counts.filter { $0.key.hasPrefix(method + " ") && $0.key.contains("/reactions/") }.values.reduce(0, +)
    }

    @Test("an edit and a reaction whose answers are lost are read back and found applied: each made once")
    func lostAnswers() async throws {
        let harness = try await OutboxHarness()
        let (client, recorder) = harness.client()
        await client.resume(harness.credentials)
        await recorder.next(.connected)
        let general = harness.server.lobbyChannelID
        let posted = try await harness.server.postMessage(as: harness.account.userID, in: general, content: "before")
        await harness.server.resetRequestCounts()
        await harness.server.loseNextActionAnswers(2)

        let edit = try await client.edit(posted.id, in: general, to: "after")
        #expect(edit.kind == .edit)
        #expect(await client.delivery(of: edit.nonce) == .sent(messageID: posted.id))
        let react = try await client.react(to: posted.id, in: general, with: "👍")
        #expect(await client.delivery(of: react.nonce) == .sent(messageID: posted.id))

        let counts = await harness.server.requestCounts()
        #expect(counts[Self.edit] == 1, "\(counts)")
        #expect(Self.reactionRequests(counts, "PUT") == 1, "\(counts)")
        #expect(counts[Self.read] == 2, "each lost answer read back once: \(counts)")
        let stored = try await harness.api.message(posted.id, in: general, harness.credentials)
        #expect(stored.content == "after")
        #expect(stored.reactions?["👍"] == [harness.account.userID])
        await harness.stop()
    }

    @Test("a deletion of a message already gone and an unreaction of a reaction not there are sent, not failed")
    func alreadySo() async throws {
        let harness = try await OutboxHarness()
        let (client, recorder) = harness.client()
        await client.resume(harness.credentials)
        await recorder.next(.connected)
        let general = harness.server.lobbyChannelID
        let gone = try await harness.server.postMessage(as: harness.account.userID, in: general, content: "gone")
        let kept = try await harness.server.postMessage(as: harness.account.userID, in: general, content: "kept")
        try await harness.server.deleteMessage(id: gone.id)

        let delete = try await client.delete(gone.id, in: general)
        #expect(await client.delivery(of: delete.nonce) == .sent(messageID: gone.id))
        let unreact = try await client.unreact(to: kept.id, in: general, with: "👍")
        #expect(await client.delivery(of: unreact.nonce) == .sent(messageID: kept.id))
        // A reaction already there is answered as the first was.
        let first = try await client.react(to: kept.id, in: general, with: "🎉")
        let again = try await client.react(to: kept.id, in: general, with: "🎉")
        #expect(await client.delivery(of: first.nonce) == .sent(messageID: kept.id))
        #expect(await client.delivery(of: again.nonce) == .sent(messageID: kept.id))
        let stored = try await harness.api.message(kept.id, in: general, harness.credentials)
        #expect(stored.reactions?["🎉"] == [harness.account.userID])
        await harness.stop()
    }

    @Test(
        "another user's message: a member's deletion is refused and undone in the model with the server's reason; the owner's is applied"
    )
    @MainActor
    func anotherUsersMessage() async throws {
        let harness = try await OutboxHarness()
        let general = harness.server.lobbyChannelID
        let owner = harness.server.defaultAccount
        let ownersMessage = try await harness.server.postMessage(as: owner.userID, in: general, content: "owner's")
        let membersMessage = try await harness.server.postMessage(
            as: harness.account.userID, in: general, content: "member's")

        let (member, memberRecorder) = harness.client()
        let model = StoatClientModel(client: member).channel(general)
        let following = Task { await model.run() }
        await member.resume(harness.credentials)
        await memberRecorder.next(.connected)
        await model.delete(ownersMessage.id)
        let refused = try #require(model.client.pendingActions(in: general).first)
        guard case .failed(let failure)? = await member.delivery(of: refused.nonce) else {
            Issue.record("the member's deletion was not refused")
            return
        }
        #expect(failure.code == .api(.missingPermission))
        await waitUntil { !model.failedActions.isEmpty }
        #expect(model.pendingDeletions.isEmpty, "undone on the message")
        #expect(model.failedActions.first?.target == ownersMessage.id)
        #expect(await harness.server.messages(in: general).contains { $0.id == ownersMessage.id })

        let (ownerClient, ownerRecorder) = harness.client()
        await ownerClient.resume(SessionCredentials(token: owner.token, userID: owner.userID))
        await ownerRecorder.next(.connected)
        let deletion = try await ownerClient.delete(membersMessage.id, in: general)
        #expect(await ownerClient.delivery(of: deletion.nonce) == .sent(messageID: membersMessage.id))
        #expect(await !harness.server.messages(in: general).contains { $0.id == membersMessage.id })
        following.cancel()
        await following.value
        await harness.stop()
    }

    @Test("an edit queued offline is kept in the store across a restart, then applied once")
    func offlineRestart() async throws {
        let harness = try await OutboxHarness()
        let email = "actions@example.com"
        let password = "actions password 1"
        let member = try await harness.server.addAccount(email: email, password: password, username: "actor")
        try await harness.server.join(userID: member.userID, serverID: harness.server.lobbyServerID)
        let general = harness.server.lobbyChannelID
        let posted = try await harness.server.postMessage(as: member.userID, in: general, content: "typo")
        let (first, recorder) = harness.client()
        _ = try #require(await first.signIn(to: harness.stores.store, email: email, password: password).database)
        await recorder.next(.connected)
        harness.network.set(.offline)
        await recorder.next { $0.network == .offline }
        _ = await harness.server.dropAllSockets()
        await recorder.next(.offline)
        let entry = try await first.edit(posted.id, in: general, to: "fixed")
        #expect(entry.state == .queued(retryAfter: nil))
        await harness.stopClients()
        await harness.server.resetRequestCounts()

        harness.network.set(.online)
        let (second, _) = harness.client()
        var events = second.outboxEvents.makeAsyncIterator()
        let accounts = try harness.stores.store.accounts()
        _ = await second.signIn(to: harness.stores.store, account: accounts[0].id, password: password)
        guard case .changed(let restored)? = await events.next() else {
            Issue.record("nothing restored")
            return
        }
        #expect(restored.nonce == entry.nonce)
        #expect(restored.kind == .edit)
        #expect(restored.target == posted.id)
        #expect(await second.delivery(of: entry.nonce) == .sent(messageID: posted.id))
        #expect(await harness.server.requestCounts()[Self.edit] == 1)
        let stored = await harness.server.messages(in: general).first { $0.id == posted.id }
        #expect(stored?.content == "fixed")
        await harness.stop()
    }

    @Test("a send as the release before actions stored it is read back as a send and delivered")
    func previousReleaseRecord() async throws {
        let harness = try await OutboxHarness()
        let email = "previous@example.com"
        let password = "previous password 1"
        let member = try await harness.server.addAccount(email: email, password: password, username: "previous")
        try await harness.server.join(userID: member.userID, serverID: harness.server.lobbyServerID)
        let general = harness.server.lobbyChannelID
        let (first, recorder) = harness.client()
        let database = try #require(
            await first.signIn(to: harness.stores.store, email: email, password: password).database)
        await recorder.next(.connected)
        // Exactly the JSON the previous release wrote: format 1, no kind.
        let previous =
            #"{"version":1,"nonce":"previous1","channel":"\#(general)","content":"from before","#
            + #""position":7,"attempt":1,"posted":false,"floor":"00000000000000000000000000"}"#
        try await database.saveOutboxEntry(
            StoredOutboxEntry(nonce: "previous1", position: 7, payload: Data(previous.utf8)))
        await harness.stopClients()

        let (second, _) = harness.client()
        var events = second.outboxEvents.makeAsyncIterator()
        let accounts = try harness.stores.store.accounts()
        _ = await second.signIn(to: harness.stores.store, account: accounts[0].id, password: password)
        guard case .changed(let restored)? = await events.next() else {
            Issue.record("nothing restored")
            return
        }
        #expect(restored.kind == .send)
        guard case .sent? = await second.delivery(of: "previous1") else {
            Issue.record("not sent")
            return
        }
        #expect(try await harness.messages(in: general, content: "from before").count == 1)
        await harness.stop()
    }

    /// Waits until `condition` holds, re-checked on every change of what it reads.
    @MainActor
    private func waitUntil(_ condition: @escaping @MainActor () -> Bool) async {
        while !condition() {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let once = ResumedOnce(continuation)
                withObservationTracking {
                    _ = condition()
                } onChange: {
                    once.resume()
                }
                if condition() { once.resume() }
            }
        }
    }
}

/// A continuation resumed at most once, whoever asks first.
private final class ResumedOnce: Sendable {
    private let continuation: Mutex<CheckedContinuation<Void, Never>?>

    init(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume() {
        continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }?.resume()
    }
}
