import Logging
import Synchronization

/// Where the drafts are kept between runs: the account's encrypted store, through an adapter
/// (LifelineStoatStore's `AccountDatabaseDrafts`); without one, drafts live in memory only.
package protocol DraftPersistence: Sendable {
    /// The stored drafts by chat id, and a reason for each one that could not be read.
    func drafts() async throws -> (drafts: [String: String], unreadable: [String])
    /// Keeps a chat's draft; an empty text removes it.
    func save(_ text: String, chat: String) async throws
}

/// A ``StoatClient``'s drafts: the composer's text per channel, in memory at once and in the account's store
/// soon after (or before ``store(_:in:)`` returns).
///
/// Writes go through one gate, and each reads the chat's current text when its turn comes, so however the
/// writes of one chat interleave, the last one stores the newest text. A text changed while nothing is
/// attached (or whose write failed) is written when a store is attached or at the next change.
final class DraftEngine: Sendable {
    private struct State {
        var drafts: [String: String] = [:]
        /// Chats whose text changed since it was last stored.
        var dirty: Set<String> = []
    }

    /// The observers' key in the cache's change signals.
    static let signalKey = ChangeKey.drafts

    private let state = Mutex(State())
    private let persistence = Mutex<(any DraftPersistence)?>(nil)
    private let gate = SerialGate()
    private let signals: ChangeSignals
    private let logger: Logger
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(signals: ChangeSignals, logger: Logger) {
        self.signals = signals
        self.logger = logger
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Every chat's draft.
    var all: [String: String] { state.withLock { $0.drafts } }

    /// A chat's draft; empty when it has none.
    func text(in chat: String) -> String {
        state.withLock { $0.drafts[chat] ?? "" }
    }

    /// Sets a chat's draft in memory and marks it to be stored; `true` when it changed.
    @discardableResult
    func keep(_ text: String, in chat: String) -> Bool {
        let changed = state.withLock { state -> Bool in
            guard (state.drafts[chat] ?? "") != text else { return false }
            state.drafts[chat] = text.isEmpty ? nil : text
            state.dirty.insert(chat)
            return true
        }
        if changed {
            signals.signal([Self.signalKey])
            wake.yield()
        }
        return changed
    }

    /// Sets a chat's draft and returns once the store holds it (or a newer text).
    func store(_ text: String, in chat: String) async throws {
        keep(text, in: chat)
        try await write(chat)
    }

    /// Writes a chat's current text, if it changed since it was stored.
    private func write(_ chat: String) async throws {
        let failure: (any Error)? = await gate.run {
            guard let persistence = persistence.withLock({ $0 }) else { return nil }
            let text: String? = state.withLock { state in
                guard state.dirty.remove(chat) != nil else { return nil }
                return state.drafts[chat] ?? ""
            }
            guard let text else { return nil }
            do {
                try await persistence.save(text, chat: chat)
                return nil
            } catch {
                state.withLock { _ = $0.dirty.insert(chat) }
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Writes every chat whose text changed; a failure is logged and left to the next change.
    func flush() async {
        let chats = state.withLock { $0.dirty }
        for chat in chats.sorted() {
            do {
                try await write(chat)
            } catch {
                logger.warning("a draft could not be stored", metadata: ["lifeline.error": "\(error)"])
            }
        }
    }

    /// Stores changed drafts as they come, until the calling task is cancelled.
    func run() async {
        for await _ in wakes {
            await flush()
        }
    }

    /// Makes `persistence` the drafts' store, and its drafts the ones in memory. What a store attached before
    /// holds is written to it first and then forgotten (it is another account's); a text typed while no store
    /// was attached is kept and stored in this one.
    func attach(_ persistence: any DraftPersistence) async {
        await flush()
        let replaced = self.persistence.withLock { current in
            defer { current = persistence }
            return current != nil
        }
        if replaced { state.withLock { $0 = State() } }
        do {
            let stored = try await persistence.drafts()
            for reason in stored.unreadable {
                logger.warning("a stored draft could not be read", metadata: ["lifeline.error": "\(reason)"])
            }
            state.withLock { state in
                for (chat, text) in stored.drafts where !state.dirty.contains(chat) && !text.isEmpty {
                    state.drafts[chat] = text
                }
            }
            signals.signal([Self.signalKey])
        } catch {
            logger.warning("the stored drafts could not be read", metadata: ["lifeline.error": "\(error)"])
        }
        await flush()
    }

    /// Writes what changed, then forgets the drafts in memory (DISPOSE: the account's store keeps them for its
    /// next sign-in; without a store, a logout ends them).
    func disposed() async {
        await flush()
        let changed = state.withLock { state -> Bool in
            defer { state = State() }
            return !state.drafts.isEmpty
        }
        if changed { signals.signal([Self.signalKey]) }
    }
}
