import Lifeline
import Logging
import Synchronization

/// The account cache in use: the ``AccountCache`` value behind a lock, its observers, and the writer
/// that stores its changes in batches.
///
/// On the socket's path an event costs one locked update of the value, a wake-up of each observer of
/// what changed, and a wake-up of the writer; nothing waits for the store. The writer (``runWriter()``,
/// run by ``StoatClient/run()``) takes every change pending when it wakes and writes them as one batch,
/// so a burst of events becomes one transaction.
final class CacheEngine: Sendable {
    /// Counts of what the cache tolerated or failed at.
    struct Counters: Sendable, Equatable {
        /// Events about something the cache does not know (a message for an unknown channel…).
        var ignoredEvents = 0
        /// Batches the store refused (disk full, I/O error); their changes are retried with the next batch.
        var failedWrites = 0
        /// Batches written.
        var batchesWritten = 0
        /// Rows written or deleted.
        var rowsWritten = 0
    }

    private let state: Mutex<AccountCache>
    private let persistence = Mutex<(any CachePersistence)?>(nil)
    private let counters = Mutex(Counters())
    /// Flushes one at a time, so batches reach the store in the order they were taken.
    private let writes = SerialGate()
    private let writerWakeups: AsyncStream<Void>
    private let wakeWriter: AsyncStream<Void>.Continuation
    let signals = ChangeSignals()
    let events: Broadcaster<BonfireEvent>
    /// What happened to messages (``StoatClient/messages``), published after the cache applied it, and each
    /// catch-up's report after the messages it found.
    let messages: Broadcaster<MessageFeedItem>
    private let logger: Logger

    init(
        historyLimit: Int, eventBufferLimit: Int, readyFields: ReadyFields = .bonfireDefault,
        tracksCatchUp: Bool = false, logger: Logger
    ) {
        var cache = AccountCache(historyLimit: historyLimit, readyFields: readyFields, tracksCatchUp: tracksCatchUp)
        cache.recordsPending = false  // until a store is attached
        state = Mutex(cache)
        events = .events(limit: eventBufferLimit)
        messages = .events(limit: eventBufferLimit)
        (writerWakeups, wakeWriter) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.logger = logger
    }

    // MARK: - Reading

    /// Reads the cache under its lock.
    func read<T>(_ body: (borrowing AccountCache) -> T) -> T {
        state.withLock { body($0) }
    }

    var statistics: Counters {
        var counters = counters.withLock { $0 }
        counters.ignoredEvents = read { $0.ignoredEvents }
        return counters
    }

    /// The store the cache writes to, if one is attached.
    var store: (any CachePersistence)? { persistence.withLock { $0 } }

    // MARK: - Changing

    /// Applies a change, wakes the observers of what it touched and the writer.
    @discardableResult
    func update(_ body: (inout AccountCache) -> AccountCache.Changes) -> AccountCache.Changes {
        // Message events are published under the cache's lock, so that two updates' events reach the stream in
        // the order the cache applied them.
        let changes = state.withLock { cache in
            let changes = body(&cache)
            // Decision: with no store attached nothing is kept for one (it would grow with every message that
            // leaves a history); attaching a store marks what the cache holds instead.
            if !cache.recordsPending, !cache.pending.isEmpty { cache.pending = AccountCache.PendingWrites() }
            for event in changes.messageEvents { messages.publish(.message(event)) }
            return changes
        }
        announce(changes)
        return changes
    }

    /// Publishes a catch-up's report on the message feed, after every message event published before.
    func publish(_ report: CatchUpReport) {
        state.withLock { _ in messages.publish(.catchUp(report)) }
    }

    /// Applies a change that also answers a value (a fetch's token…), and announces what it touched.
    func mutate<T>(_ body: (inout AccountCache) -> (T, AccountCache.Changes)) -> T {
        var result: T?
        update { cache in
            let (value, changes) = body(&cache)
            result = value
            return changes
        }
        guard let result else { preconditionFailure("CacheEngine.mutate: the body gave no value") }
        return result
    }

    /// Applies an event from the socket, then hands it to the event observers.
    func receive(_ event: BonfireEvent) {
        update { $0.apply(event) }
        events.publish(event)
    }

    private func announce(_ changes: AccountCache.Changes) {
        guard !changes.isEmpty else { return }
        var keys: [ChangeKey] = changes.chats ? [.chats] : []
        keys += changes.histories.map(ChangeKey.history)
        keys += changes.members.map(ChangeKey.members)
        signals.signal(keys)
        wakeWriter.yield()
    }

    // MARK: - The store

    /// Attaches the account's store: from now on changes are written to it, and, if the cache had none, first
    /// everything it holds.
    func attach(_ store: any CachePersistence) {
        persistence.withLock { $0 = store }
        // After the store is set: a write between the two finds it and takes part of what is marked here, and
        // the rest goes with the next (writing a row twice is harmless; missing one is not).
        state.withLock { cache in
            guard !cache.recordsPending else { return }
            cache.recordsPending = true
            cache.markEverythingPending()
        }
        wakeWriter.yield()
    }

    /// Writes what is pending and detaches the store; returns it so the caller can close it.
    func detach() async -> (any CachePersistence)? {
        await flush()
        return persistence.withLock { store in
            defer { store = nil }
            return store
        }
    }

    /// Writes every pending change now (after any write already under way).
    func flush() async {
        await writes.run { await write() }
    }

    private func write() async {
        guard let store = persistence.withLock({ $0 }) else { return }
        let (pending, batch) = state.withLock { cache in
            let pending = cache.takePending()
            return (pending, cache.batch(for: pending))
        }
        guard !batch.isEmpty else { return }
        do {
            try await store.write(batch)
            counters.withLock {
                $0.batchesWritten += 1
                $0.rowsWritten += batch.rowCount
            }
        } catch {
            // Nothing stored is lost (a batch is one transaction); the changes go back in line and are
            // written with the next batch.
            state.withLock { $0.pending.restore(pending) }
            counters.withLock { $0.failedWrites += 1 }
            logger.warning(
                "the account cache could not be stored",
                metadata: ["lifeline.rows": "\(batch.rowCount)", "lifeline.error": "\(String(describing: error))"])
        }
    }

    /// Writes the pending changes whenever there are some, until the calling task is cancelled; then
    /// writes what is left.
    func runWriter() async {
        for await _ in writerWakeups {
            await flush()
        }
        await flush()
    }

    /// Ends the writer and every observation.
    func finish() {
        wakeWriter.finish()
        signals.finish()
        events.finish()
        messages.finish()
    }

    // MARK: - Invalidation (the session's hooks, through ClientCaches)

    /// RECONNECTING: every history and member list becomes stale.
    func invalidateCaches() async {
        update { $0.invalidate() }
    }

    /// DISPOSE: the pending changes are written, the store detached, and the memory cleared. The store
    /// keeps its data for the next sign-in.
    func discardCaches() async {
        _ = await detach()
        update { cache in
            cache.discard()
            cache.recordsPending = false
            return AccountCache.Changes(chats: true)
        }
    }
}
