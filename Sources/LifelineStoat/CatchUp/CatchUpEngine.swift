import Lifeline
import LifelineCore
import Logging
import Synchronization

/// Runs the catch-up after each CONNECTED: the runtime of ``CatchUpPlan``.
///
/// At CONNECTED it waits for the account's stored chats (a sign-in reads them while the session connects), asks
/// `GET /sync/unreads` (unless `Ready` carried the read states), makes the plan from the cache, and performs the
/// plan's requests with ``CatchUpPolicy/fetchesInFlight`` in flight, each waiting for its rate-limit bucket; every
/// page goes through the plan, then into the cache. It never holds CONNECTED back (it starts after it), and the
/// next disconnect cancels it — the chats' stored cursors say where the next CONNECTED resumes. A fetch that
/// fails for a transient reason (the network, the server's 5xx, a timeout) is tried again 1 s, 2 s, 4 s … up to
/// 30 s later on the client's clock for as long as the session stays connected; a chat deleted or unreadable
/// meanwhile ends quietly; a page that is not what was asked is refused and the chat given up for this
/// connection. One ``CatchUpReport`` per pass, also when interrupted: the first right after CONNECTED, the
/// second once stoatchat's lagging `last_message_id` has settled (``CatchUpPolicy/settleDelay``).
final class CatchUpEngine: Sendable {
    private let api: StoatAPI
    private let cache: CacheEngine
    private let credentials: ClientCaches.Credentials
    private let policy: CatchUpPolicy
    private let openChannels: @Sendable () -> Set<String>
    private let loadStoredHistory: @Sendable (String) async -> Void
    private let storedChatsLoaded: LoadGate
    private let sleep: @Sendable (Duration) async throws -> Void
    private let logger: Logger
    /// Every report, unbounded: one per catch-up (a reconnect), so even an observer that never reads holds few,
    /// and one that reads late still learns each catch-up's outcome.
    private let reports = Broadcaster<CatchUpReport>(buffering: .unbounded)
    private let last = Mutex<CatchUpReport?>(nil)

    init(
        api: StoatAPI, cache: CacheEngine, credentials: ClientCaches.Credentials, policy: CatchUpPolicy,
        openChannels: @escaping @Sendable () -> Set<String>,
        loadStoredHistory: @escaping @Sendable (String) async -> Void, storedChatsLoaded: LoadGate,
        sleep: @escaping @Sendable (Duration) async throws -> Void, logger: Logger
    ) {
        self.api = api
        self.cache = cache
        self.credentials = credentials
        self.policy = policy
        self.openChannels = openChannels
        self.loadStoredHistory = loadStoredHistory
        self.storedChatsLoaded = storedChatsLoaded
        self.sleep = sleep
        self.logger = logger
    }

    /// The reports from now on.
    func subscribe() -> AsyncStream<CatchUpReport> { reports.subscribe() }

    /// The last report.
    var lastReport: CatchUpReport? { last.withLock { $0 } }

    /// Follows the session's moments (its hooks, through the client) until the calling task is cancelled: a
    /// catch-up starts at each CONNECTED and is cancelled when the session leaves it.
    func run(lifecycle: AsyncStream<ClientLifecycle>) async {
        await withDiscardingTaskGroup { group in
            // The running catch-up's cancellation token: each is a child of this group, stopped early by it.
            var current: Work<CatchUpPass>?
            for await moment in lifecycle {
                switch moment {
                case .leftConnected:
                    current?.cancel()
                    current = nil
                case .connected where policy.isEnabled:
                    current?.cancel()
                    let generation = cache.read { $0.generation }
                    let work = Work<CatchUpPass>()
                    current = work
                    group.addTask { _ = await work.race { await self.catchUp(generation: generation) } }
                case .connected, .ended, .entered:
                    break
                }
            }
            current?.cancel()
        }
        reports.finish()
    }

    // MARK: - One catch-up

    /// What the workers share, behind a lock.
    private final class Shared: Sendable {
        let progress: Mutex<Progress>
        init(_ plan: CatchUpPlan) { progress = Mutex(Progress(plan: plan)) }
    }

    /// What the workers share: the plan, the chats not yet started, the counts for the report.
    private struct Progress {
        var plan: CatchUpPlan
        var next = 0
        var channels = 0
        var messages = 0
        var verifiedChanges = 0
        var chats: [String: ChatCatchUp] = [:]
        var failed = false
    }

    private func catchUp(generation: UInt64) async {
        await storedChatsLoaded.wait()
        guard let credentials = credentials.value, !Task.isCancelled else {
            // Without a session for its REST calls (the session was started past the client) or interrupted:
            // nothing caught up, said so.
            publish(CatchUpReport(channels: 0, messages: 0, isComplete: false, gaps: cache.read { $0.gapCount }))
            return
        }
        // The second pass's time counts from CONNECTED, not from the end of the first.
        let settles = policy.settleDelay > .zero
        async let settled: Bool = settles ? waitToSettle() : false
        var plan: CatchUpPlan?
        let open = openChannels()
        cache.update { cache in
            let (made, changes) = cache.planCatchUp(open: open, policy: policy)
            plan = made
            return changes
        }
        guard let plan else { return }
        let needsUnreads = !cache.read { $0.readyGaveUnreads }
        var first = await run(plan, credentials, generation: generation, needsUnreads: needsUnreads)
        let firstComplete = first.isComplete
        if settles { first.isComplete = false }
        publish(first)
        guard await settled, !Task.isCancelled else { return }
        let second = await settle(credentials, generation: generation)
        var report = second
        report.isComplete = firstComplete && second.isComplete
        publish(report)
    }

    /// Sleeps ``CatchUpPolicy/settleDelay`` on the client's clock; false when cancelled.
    private func waitToSettle() async -> Bool {
        do {
            try await sleep(policy.settleDelay)
            return true
        } catch {
            return false
        }
    }

    /// The second pass: reads every chat's `last_message_id` again, now committed, and fetches the chats the
    /// first pass trusted `Ready` for whose field moved.
    private func settle(_ credentials: SessionCredentials, generation: UInt64) async -> CatchUpReport {
        var refreshed: [Channel] = []
        var failed = false
        // Only the lists that hold a chat the first pass trusted `Ready` for: its servers, and the direct
        // messages and groups when one of them is such a chat.
        let (servers, needsDirect) = cache.read { cache in
            let trusted = cache.settleCursors.keys.compactMap { cache.channels[$0] }
            return (Set(trusted.compactMap(\.server)).sorted(), trusted.contains { $0.server == nil })
        }
        // Each list on its own: a server left meanwhile (`NotFound`) does not keep the others from being read.
        let lists: [ChatList] = (needsDirect ? [.directMessages] : []) + servers.map(ChatList.server)
        for list in lists {
            do {
                refreshed += try await withRetries { () async throws(StoatAPIError) -> [Channel] in
                    try await self.chats(in: list, credentials)
                }
            } catch {
                guard !Task.isCancelled else { break }
                logger.info(
                    "the second catch-up pass could not read a chat list", metadata: ["lifeline.error": "\(error)"])
                failed = true
            }
        }
        var plan: CatchUpPlan?
        cache.update { cache in
            guard cache.generation == generation else { return AccountCache.Changes() }
            let (made, changes) = cache.planSettle(refreshed, policy: policy)
            plan = made
            return changes
        }
        guard let plan else {
            return CatchUpReport(channels: 0, messages: 0, isComplete: false, gaps: 0, pass: 2)
        }
        var report = await run(plan, credentials, generation: generation, needsUnreads: false)
        report.pass = 2
        if failed { report.isComplete = false }
        return report
    }

    /// A list of chats as the server stores them now, for the second pass.
    private enum ChatList: Sendable {
        /// `GET /users/dms`: the direct messages and groups.
        case directMessages
        /// `GET /servers/{id}?include_channels=true`: a server's channels.
        case server(String)
    }

    private func chats(in list: ChatList, _ credentials: SessionCredentials) async throws(StoatAPIError) -> [Channel] {
        switch list {
        case .directMessages: try await api.directMessages(credentials)
        case .server(let id): try await api.serverChannels(id, credentials)
        }
    }

    /// Runs `body` until it succeeds, waiting 1 s, 2 s, 4 s … up to 30 s after each transient failure; a lasting
    /// one (a server gone, a refusal) is thrown.
    private func withRetries<Value>(
        _ body: @Sendable () async throws(StoatAPIError) -> Value
    ) async throws -> Value {
        var delay = Duration.seconds(1)
        while true {
            do {
                return try await body()
            } catch {
                guard Self.disposition(of: error) == .retry else { throw error }
                try await sleep(delay)
                delay = min(delay * 2, .seconds(30))
            }
        }
    }

    /// Performs one pass's plan with ``CatchUpPolicy/fetchesInFlight`` in flight; its report.
    private func run(
        _ plan: CatchUpPlan, _ credentials: SessionCredentials, generation: UInt64, needsUnreads: Bool
    ) async -> CatchUpReport {
        let shared = Shared(plan)
        await withDiscardingTaskGroup { group in
            if needsUnreads {
                group.addTask { await self.fetchUnreads(credentials, generation: generation) }
            }
            for _ in 0..<policy.fetchesInFlight {
                group.addTask {
                    while !Task.isCancelled {
                        let chat: String? = shared.progress.withLock { progress in
                            guard progress.next < progress.plan.order.count else { return nil }
                            defer { progress.next += 1 }
                            return progress.plan.order[progress.next]
                        }
                        guard let chat else { return }
                        await self.catchUp(chat, shared: shared, credentials, generation: generation)
                    }
                }
            }
        }
        var report = shared.progress.withLock { progress in
            CatchUpReport(
                channels: progress.channels, messages: progress.messages,
                isComplete: !progress.failed && !Task.isCancelled && progress.next >= progress.plan.order.count,
                gaps: 0, verifiedChanges: progress.verifiedChanges, chats: progress.chats)
        }
        report.gaps = cache.read { $0.gapCount }
        return report
    }

    private func publish(_ final: CatchUpReport) {
        last.withLock { $0 = final }
        reports.publish(final)
        cache.publish(final)
        logger.info(
            "caught up",
            metadata: [
                "lifeline.channels": "\(final.channels)", "lifeline.messages": "\(final.messages)",
                "lifeline.complete": "\(final.isComplete)", "lifeline.gaps": "\(final.gaps)",
            ])
    }

    /// `GET /sync/unreads` into the cache; a failure leaves the read states as they were.
    private func fetchUnreads(_ credentials: SessionCredentials, generation: UInt64) async {
        do {
            let unreads = try await api.unreads(credentials)
            cache.update { cache in
                guard cache.generation == generation else { return AccountCache.Changes() }
                cache.unreadsFetched(unreads)
                return AccountCache.Changes(chats: true)
            }
        } catch {
            logger.info("unreads could not be fetched", metadata: ["lifeline.error": "\(error)"])
        }
    }

    /// Catches one chat up: its stored history first (for the ids to re-verify), then the plan's requests.
    private func catchUp(
        _ chat: String, shared: Shared, _ credentials: SessionCredentials, generation: UInt64
    ) async {
        await loadStoredHistory(chat)
        let cached = cache.read { $0.histories[chat]?.messages.map(\.id) ?? [] }
        var request = shared.progress.withLock { $0.plan.start(chat, cachedIDs: cached) }
        var counted = false
        var delay = Duration.seconds(1)
        while let current = request, !Task.isCancelled {
            let token = cache.mutate { ($0.historyFetchStarted(channel: chat), AccountCache.Changes()) }
            let query: MessageQuery
            switch current {
            case .after(let id, let limit):
                query = MessageQuery(limit: limit, after: id, sort: .oldest, includeUsers: true)
            case .latest(let limit): query = .latest(limit: limit, includeUsers: true)
            }
            let page: MessagesPage
            do {
                page = try await api.messages(in: chat, query: query, credentials)
            } catch {
                cache.update { cache in
                    cache.catchUpAbandoned(chat, fetch: token)
                    return AccountCache.Changes()
                }
                switch Self.disposition(of: error) {
                case .quiet:
                    shared.progress.withLock { $0.plan.abandon(chat) }
                    return
                case .giveUp:
                    logger.info("a chat could not be caught up", metadata: ["lifeline.error": "\(error)"])
                    shared.progress.withLock {
                        $0.plan.abandon(chat)
                        $0.failed = true
                    }
                    return
                case .retry:
                    logger.debug("a catch-up fetch failed; trying again", metadata: ["lifeline.error": "\(error)"])
                    do { try await sleep(delay) } catch { return }
                    delay = min(delay * 2, .seconds(30))
                    continue
                }
            }
            if !counted {
                counted = true
                shared.progress.withLock { progress in
                    progress.channels += 1
                    progress.chats[chat] = ChatCatchUp(messages: 0)
                }
            }
            let outcome: CatchUpPlan.Outcome
            do {
                outcome = try shared.progress.withLock { progress throws(StoatClientError) in
                    try progress.plan.received(page.messages, for: chat)
                }
            } catch {
                logger.info("a catch-up page was refused", metadata: ["lifeline.error": "\(error)"])
                cache.update { cache in
                    cache.catchUpAbandoned(chat, fetch: token)
                    return AccountCache.Changes()
                }
                shared.progress.withLock {
                    $0.plan.abandon(chat)
                    $0.failed = true
                }
                return
            }
            let changes = cache.update { cache in
                guard cache.generation == generation else {
                    cache.catchUpAbandoned(chat, fetch: token)
                    return AccountCache.Changes()
                }
                for user in page.users { cache.upsert(user) }
                return cache.applyCatchUp(outcome, fetch: token, generation: generation)
            }
            var received = 0
            var oldest: String?
            var changed = 0
            for event in changes.messageEvents {
                switch event {
                case .received(let message, .caughtUp):
                    received += 1
                    if oldest.map({ message.id < $0 }) ?? true { oldest = message.id }
                case .updated(let change) where change.origin == .caughtUp: changed += 1
                case .deleted(_, _, .caughtUp): changed += 1
                default: break
                }
            }
            shared.progress.withLock { progress in
                progress.messages += received
                progress.verifiedChanges += changed
                var found = progress.chats[chat] ?? ChatCatchUp(messages: 0)
                found.messages += received
                if let oldest, found.oldestFound.map({ oldest < $0 }) ?? true { found.oldestFound = oldest }
                progress.chats[chat] = found
            }
            request = outcome.next
            delay = .seconds(1)
        }
    }

    /// What to do after a failed fetch.
    enum Disposition: Equatable {
        /// The chat is gone or unreadable: its catch-up ends quietly.
        case quiet
        /// Asking again would not help: the chat is given up for this connection.
        case giveUp
        /// A transient failure: ask again later.
        case retry
    }

    static func disposition(of error: StoatAPIError) -> Disposition {
        switch error.code {
        case .notFound, .unknownChannel, .missingPermission: return .quiet
        case .malformedResponse: return .giveUp
        default: break
        }
        guard let status = error.status else { return .retry }
        if status == 401 || status == 408 || status == 429 || status >= 500 { return .retry }
        return (400..<500).contains(status) ? .giveUp : .retry
    }
}

/// A gate the catch-up waits at while a sign-in reads the account's stored chats into the cache.
final class LoadGate: Sendable {
    private let state = Mutex<(closed: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func close() {
        state.withLock { $0.closed = true }
    }

    func open() {
        let waiters = state.withLock { state in
            state.closed = false
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                if !state.closed { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }
}

/// What a catch-up pass's work attaches: nothing (a pass is stopped by its race alone). A type with a value, not
/// `Never`, as `Work`'s attachment.
struct CatchUpPass: Sendable {}
