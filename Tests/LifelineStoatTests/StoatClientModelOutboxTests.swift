import Foundation
import Lifeline
import LifelineCore
import Observation
import Synchronization
import Testing

@testable import LifelineStoat

@Suite("The model shows the outbox", .hangBound)
@MainActor
struct StoatClientModelOutboxTests {
    @Test("a message sent while not connected shows as pending in its channel, queued, and leaves when discarded")
    func pendingMessages() async throws {
        // No server: the outbox keeps the message queued in memory until a session connects.
        let client = StoatClient(apiURL: URL(string: "http://127.0.0.1:9")!, network: ManualNetworkMonitor(.online))
        let model = StoatClientModel(client: client)
        let running = Task { await client.run() }
        let following = Task { await model.run() }

        let entry: OutboxEntry? = try await client.send(OutgoingMessage(content: "later"), to: "C1")
        await waitUntil { !model.pendingMessages(in: "C1").isEmpty }
        let pending = model.pendingMessages(in: "C1")
        #expect(pending.map(\.nonce) == [entry?.nonce])
        #expect(pending.first?.state == .queued(retryAfter: nil))
        #expect(pending.first?.message.content == "later")
        #expect(model.pendingMessages(in: "C2").isEmpty)

        try client.discard(try #require(entry?.nonce))
        await waitUntil { model.outbox.isEmpty }
        #expect(client.outbox.isEmpty)

        following.cancel()
        running.cancel()
        await following.value
        await running.value
    }

    @Test("edits, deletions and reactions not confirmed show at once on their channel's model, not as pending sends")
    func pendingActions() async throws {
        // No server: the actions stay queued, as they would offline.
        let client = StoatClient(apiURL: URL(string: "http://127.0.0.1:9")!, network: ManualNetworkMonitor(.online))
        let model = StoatClientModel(client: client)
        let channel = model.channel("C1")
        let running = Task { await client.run() }
        let following = Task { await channel.run() }

        await channel.edit("M1", to: "new text")
        await channel.delete("M2")
        await channel.react(to: "M3", with: "👍")
        await channel.unreact(to: "M3", with: "🎉")
        await waitUntil { channel.pendingActions.count == 4 }
        #expect(channel.pending.isEmpty, "no action shows as a pending message")
        #expect(client.pendingMessages(in: "C1").isEmpty)
        #expect(channel.pendingActions.map(\.kind) == [.edit, .delete, .react, .unreact])
        #expect(channel.pendingActions.allSatisfy { $0.state == .queued(retryAfter: nil) })
        #expect(channel.pendingEdits == ["M1": "new text"])
        #expect(channel.pendingDeletions == ["M2"])
        #expect(
            channel.pendingReactions.map { "\($0.kind.rawValue) \($0.target ?? "") \($0.emoji ?? "")" } == [
                "react M3 👍", "unreact M3 🎉",
            ])
        let shown = channel.displayed(Message(id: "M1", channel: "C1", author: "me", content: "old text"))
        #expect(shown.content == "new text")
        #expect(channel.failedActions.isEmpty)

        try client.discard(try #require(channel.pendingActions.first?.nonce))
        await waitUntil { channel.pendingActions.count == 3 }
        #expect(channel.pendingEdits.isEmpty, "a discarded edit is no longer shown")

        following.cancel()
        running.cancel()
        await following.value
        await running.value
    }

    /// Waits until `condition` holds, re-checked on every change of what it reads.
    private func waitUntil(_ condition: @escaping @MainActor () -> Bool) async {
        while !condition() {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let once = ResumeOnce(continuation)
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
private final class ResumeOnce: Sendable {
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
