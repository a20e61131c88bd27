public import LifelineCore
public import Logging

/// The pending operations (login approvals, MFA tickets, invites…) as the server lists them, kept
/// current: refreshed when one expires and when the server says one finished, never changed locally.
///
/// Call ``run()`` in a task for as long as the list should be watched: it fetches the list from the
/// ``OperationSource``, converts each expiry from the server's clock to the device's monotonic clock once
/// (`ServerClockAnchor`), and watches the deadlines with one timer (the package's engine driver, as the
/// ``OperationExpirationWatcher`` does). When the timer reports an expiry, the operation is marked ``ListedOperation/State/expiredAwaitingRefresh`` and the list
/// is refreshed; only a refresh that no longer contains an operation removes it. Push notifications of a
/// finished operation are not guaranteed to arrive; when one does, call ``operationFinished(_:)``.
///
/// ```swift
/// let list = OperationList(source: stoatOperations)
/// Task { await list.run() }
/// for await operations in list.lists {
///     show(operations)           // each with its state: pending, or expired and awaiting a refresh
/// }
/// ```
///
/// ## Refreshes
///
/// Refreshes never overlap and never pile up: at most one is in flight, and any number of requests made
/// meanwhile (expiries, pushes, ``refresh()``) become one more refresh after it.
///
/// A refresh that still lists an operation whose deadline has passed — the estimate of the server's
/// clock can be up to a round trip plus the `Date` header's second late, and a server may be slow to
/// clean up — does not refresh again at once: the operation is checked again after the
/// ``Configuration/recheck`` policy's delay, 1 s, then 2 s, 4 s … up to 60 s while the server keeps
/// listing it. A refresh that fails is retried the same way while an operation awaits one.
///
/// Logs use fixed messages at `.info` and below with the metadata keys `lifeline.operations` and
/// `lifeline.error`.
public actor OperationList<Operation: Identifiable & Sendable> where Operation.ID: Sendable {
    /// Tunables of the list.
    public struct Configuration: Sendable {
        /// How long to wait before checking again on an operation listed after its deadline.
        public var recheck: ExpiryRecheckPolicy

        /// Creates a configuration.
        ///
        /// - Parameter recheck: The re-check delays; 1 s doubling up to 60 s by default.
        public init(recheck: ExpiryRecheckPolicy = .standard) {
            self.recheck = recheck
        }
    }

    /// What the timer watches for the list: an operation's id and the deadline it was watched for, so
    /// that a firing meant for an older list is recognised.
    private struct Watch: Identifiable, Sendable {
        var id: Operation.ID
        var deadline: Duration
    }

    private struct Entry {
        var operation: Operation
        var state: ListedOperation<Operation>.State
        var serverExpiry: WallClockTime?
        var deadline: Duration?
        /// When the timer is to fire for it — its deadline or a re-check — or `nil` when it is not
        /// watched (it does not expire, or it expired and a refresh is on its way).
        var watchDeadline: Duration?
        /// How many times it was found listed, or a refresh failed, after its deadline.
        var overdueChecks: Int

        var listed: ListedOperation<Operation> {
            ListedOperation(operation, state: state, serverExpiry: serverExpiry, deadline: deadline)
        }
    }

    private let source: any OperationSource<Operation>
    /// The list's timer and its children; the list's state is the actor's.
    private let driver: EngineDriver<Void, Never, Watch>
    private let wallClock: @Sendable () -> WallClockTime
    private let configuration: Configuration
    private let logger: Logger

    private var order: [Operation.ID] = []
    private var entries: [Operation.ID: Entry] = [:]
    /// The list as it is: every version, unbounded, since the list's tests and its observers follow each
    /// refresh and expiry in turn; one version per refresh or expiry, so an idle observer holds few.
    private let listBroadcaster = Broadcaster<[ListedOperation<Operation>]>(current: [], buffering: .unbounded)
    /// What happened to the list: every event, unbounded, at most one per refresh or expiry batch.
    private let eventBroadcaster = Broadcaster<OperationListEvent<Operation>>(buffering: .unbounded)
    /// Refresh requests; buffering only the newest makes "one in flight, one queued".
    private let requests: AsyncStream<Void>
    private let requestContinuation: AsyncStream<Void>.Continuation
    private var started = false

    /// Creates a list; nothing is fetched until ``run()``.
    ///
    /// - Parameters:
    ///   - source: Fetches the operations (for Stoat, `LifelineStoat`'s `GET /operations`).
    ///   - clock: The monotonic clock the deadlines and timers use; `ContinuousClock` by default.
    ///   - wallClock: The device's wall clock, read only when an answer states no server time (then once,
    ///     when it arrives); `WallClockTime.deviceNow()` by default.
    ///   - configuration: The list's tunables.
    ///   - logger: Where the list logs (at `.info` and below). Silent by default.
    public init(
        source: some OperationSource<Operation>,
        clock: some Clock<Duration> = ContinuousClock(),
        wallClock: @escaping @Sendable () -> WallClockTime = WallClockTime.deviceNow,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "lifeline.operations", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.source = source
        self.wallClock = wallClock
        self.configuration = configuration
        self.logger = logger
        driver = EngineDriver((), clock: SessionClock(clock))
        (requests, requestContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: - Observing

    /// The list, for any number of observers: each iteration starts with the current list, then receives
    /// every change — a refresh, an expiry — until ``run()`` ends.
    public nonisolated var lists: AsyncStream<[ListedOperation<Operation>]> { listBroadcaster.subscribe() }

    /// The current list.
    public nonisolated var operations: [ListedOperation<Operation>] { listBroadcaster.current ?? [] }

    /// What happens from the moment this property is read: refreshes, expiries, failures. Each read starts
    /// a new subscription; it ends when ``run()`` ends.
    public nonisolated var events: AsyncStream<OperationListEvent<Operation>> { eventBroadcaster.subscribe() }

    /// The time on the list's monotonic clock, which ``ListedOperation/deadline`` is stated on.
    public nonisolated var now: Duration { driver.now }

    // MARK: - Running

    /// Fetches the list, then keeps it current until the calling task is cancelled; then stops its timer
    /// and finishes ``lists`` and ``events``. Call it once.
    public func run() async {
        precondition(!started, "OperationList.run() was called twice")
        started = true
        refresh()
        driver.addChild { [requests] in
            // One refresh at a time; requests made meanwhile wait as one (the stream keeps the newest).
            for await _ in requests { await self.performRefresh() }
        }
        // The requests end when this task is cancelled.
        await driver.run { batch in await self.expired(batch) }
        listBroadcaster.finish()
        eventBroadcaster.finish()
    }

    /// Asks for a refresh. Coalesced: if one is in flight, one more follows it, however often this is
    /// called meanwhile. Does nothing after ``run()`` has ended.
    public nonisolated func refresh() {
        requestContinuation.yield()
    }

    /// Tells the list that the server finished an operation (the push `OperationFinished`, from the events
    /// socket or the app's push handler): the list is refreshed; nothing is removed before it says so.
    ///
    /// - Parameter id: The operation the push named.
    public nonisolated func operationFinished(_ id: Operation.ID) {
        logger.debug("operation finished", metadata: ["lifeline.operations": "\(id)"])
        refresh()
    }

    // MARK: - Refreshing

    private func performRefresh() async {
        let listing: OperationListing<Operation>
        do {
            listing = try await source.fetchOperations()
        } catch {
            guard !Task.isCancelled else { return }
            logger.info("refreshing the operations failed", metadata: ["lifeline.error": "\(type(of: error))"])
            eventBroadcaster.publish(.refreshFailed(error))
            recheckAfterFailure()
            return
        }
        guard !Task.isCancelled else { return }
        // Read after the answer arrived: a later reading only moves deadlines later, never earlier.
        apply(listing, receivedAt: driver.now)
    }

    /// Replaces the list with a refresh's answer and watches its deadlines.
    private func apply(_ listing: OperationListing<Operation>, receivedAt now: Duration) {
        let anchor = ServerClockAnchor(
            serverTime: listing.serverTime ?? wallClock(),
            resolution: listing.serverTime == nil ? .zero : listing.serverTimeResolution,
            roundTrip: listing.roundTrip, receivedAt: now)
        var newOrder: [Operation.ID] = []
        var newEntries: [Operation.ID: Entry] = [:]
        for item in listing.entries {
            let id = item.operation.id
            if newEntries[id] == nil { newOrder.append(id) }
            newEntries[id] = entry(for: item, previous: entries[id], anchor: anchor, now: now)
        }
        order = newOrder
        entries = newEntries
        let watched = newOrder.compactMap { id in
            newEntries[id]?.watchDeadline.map { (Watch(id: id, deadline: $0), $0) }
        }
        driver.replaceAll(with: watched)
        let listed = publish()
        logger.debug("operations refreshed", metadata: ["lifeline.operations": "\(listed.count)"])
        eventBroadcaster.publish(.refreshed(listed))
    }

    /// One refreshed operation's entry: pending and watched until its deadline, or — when its deadline has
    /// passed, or it was already awaiting a refresh with the same expiry — expired, checked again later.
    private func entry(
        for item: OperationListing<Operation>.Entry, previous: Entry?, anchor: ServerClockAnchor, now: Duration
    ) -> Entry {
        var entry = Entry(
            operation: item.operation, state: .pending, serverExpiry: item.expires,
            deadline: item.expires.map(anchor.localDeadline(for:)), watchDeadline: nil, overdueChecks: 0)
        guard let deadline = entry.deadline else { return entry }
        let sameExpiry = previous?.serverExpiry == item.expires
        let stillExpired = sameExpiry && previous?.state == .expiredAwaitingRefresh
        if deadline > now && !stillExpired {
            entry.watchDeadline = deadline
        } else {
            // Listed after its deadline: the server is behind the estimate. Check again later, not now.
            let checks = sameExpiry ? previous?.overdueChecks ?? 0 : 0
            entry.state = .expiredAwaitingRefresh
            entry.overdueChecks = checks + 1
            entry.watchDeadline = max(deadline, now + configuration.recheck.delay(afterChecks: checks))
        }
        return entry
    }

    /// After a failed refresh, watches every operation that awaits one again, after the re-check delay.
    private func recheckAfterFailure() {
        let now = driver.now
        var watched: [(Watch, Duration)] = []
        for id in order {
            guard var entry = entries[id], entry.state == .expiredAwaitingRefresh, entry.watchDeadline == nil
            else { continue }
            let deadline = now + configuration.recheck.delay(afterChecks: entry.overdueChecks)
            entry.overdueChecks += 1
            entry.watchDeadline = deadline
            entries[id] = entry
            watched.append((Watch(id: id, deadline: deadline), deadline))
        }
        guard !watched.isEmpty else { return }
        driver.schedule(contentsOf: watched)
    }

    // MARK: - Expiring

    /// The timer fired: marks the operations expired (they stay listed) and asks for a refresh.
    private func expired(_ batch: [Watch]) {
        var expired: [Operation] = []
        for watch in batch {
            guard var entry = entries[watch.id], entry.watchDeadline == watch.deadline else {
                // Fired for a list a refresh has since replaced, before the timer heard of the new one.
                continue
            }
            entry.state = .expiredAwaitingRefresh
            entry.watchDeadline = nil
            entries[watch.id] = entry
            expired.append(entry.operation)
        }
        guard !expired.isEmpty else { return }
        logger.debug("operations expired", metadata: ["lifeline.operations": "\(expired.count)"])
        publish()
        eventBroadcaster.publish(.expired(expired))
        refresh()
    }

    @discardableResult
    private func publish() -> [ListedOperation<Operation>] {
        let listed = order.compactMap { entries[$0]?.listed }
        listBroadcaster.publish(listed)
        return listed
    }
}
