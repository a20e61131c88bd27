internal import LifelineCore

/// Watches operations that expire and reports them, in batches, when their deadlines pass — with one
/// timer, however many operations it watches.
///
/// Add operations with a deadline on the watcher's clock (``now`` plus a duration, or a deadline from a
/// `ServerClockAnchor` read against ``now``); remove them or replace them all as the list changes. The
/// watcher keeps them in one timer, on the injected `Clock`, that sleeps until the earliest deadline.
/// After every change that moves the earliest deadline, and after every firing — including one
/// that finds nothing due — it re-arms the timer for whatever is earliest then.
///
/// When the timer fires, everything due is reported as one batch, earliest first, through
/// ``expirations`` and to the ``OperationExpirationDelegate``. The watcher stops watching what it reported;
/// it removes nothing from anything else. Operations shown to the user stay until a refresh from the
/// server no longer lists them (``OperationList`` does exactly that).
///
/// ```swift
/// let watcher = OperationExpirationWatcher<Ticket>()
/// let expirations = watcher.expirations
/// await withDiscardingTaskGroup { group in
///     group.addTask { await watcher.run() }          // its timer, for as long as the group runs
///     await watcher.add(ticket, expiresAt: watcher.now + .seconds(30))
///     for await expired in expirations {
///         refreshFromServer()
///     }
/// }
/// ```
///
/// The watcher's timer is a loop, ``run()``, that its owner runs as a child of its own task group (as
/// ``OperationList/run()`` does): nothing fires until it runs, and nothing outlives it. Decision: a `run()`
/// rather than a task of the watcher's own, so no timer outlives its owner's group. When the watcher is
/// released (its run ended), ``expirations`` finishes.
///
/// Decision: the watcher is a thin face over one `DeadlineTimer` whose entries are the operations themselves
/// (one heap, one sleep), rather than a queue of its own in front of a timer holding one wake-up; the
/// timer's changes are inlinable, so the watcher's fast paths stay specialised in the caller's module.
///
/// The methods that change what is watched are inlinable, as the timer's changes and `ExpiryQueue` are, and
/// the actor is `final`: without it, a call from another module goes through the actor's vtable to the
/// unspecialised generic body. A watcher of the caller's own operation type is then specialised in the
/// caller's module, and adding one operation costs a lock, a hash and a sift rather than generic lookups
/// through metadata (see the `Lifeline` catalog, "Operation expiration").
public final actor OperationExpirationWatcher<Operation: Identifiable & Sendable> where Operation.ID: Sendable {
    private let clock: SessionClock
    private let broadcaster = Broadcaster<[Operation]>()
    private weak var delegate: (any OperationExpirationDelegate<Operation>)?
    /// The watched operations at their deadlines, and the one sleep until the earliest; its loop is ``run()``.
    @usableFromInline let timer: DeadlineTimer<Operation>

    /// How many times the watcher has armed a timer: once per change of the earliest deadline, not once
    /// per operation, and once more after a wake-up that found nothing due (a clock that woke early).
    public var timersArmed: Int { timer.wakeUpsMoved + timer.sleepsFoundNothingDue }

    /// Creates a watcher with nothing to watch.
    ///
    /// - Parameter clock: The clock for the timer and for ``now``; `ContinuousClock` (monotonic, and it
    ///   keeps counting while the device sleeps) by default, a test clock in tests.
    public init(clock: some Clock<Duration> = ContinuousClock()) {
        let clock = SessionClock(clock)
        self.clock = clock
        timer = DeadlineTimer(clock: clock)
    }

    deinit {
        broadcaster.finish()
    }

    // MARK: - Observing

    /// The time on the watcher's clock: the time elapsed since the watcher was created. Deadlines are
    /// stated on this timeline.
    public nonisolated var now: Duration { clock.elapsed() }

    /// The batches of expired operations reported from the moment this property is read, until the
    /// watcher is released. Each read starts a new, independent subscription.
    public nonisolated var expirations: AsyncStream<[Operation]> { broadcaster.subscribe() }

    /// Sets the delegate, held weakly, told of every batch after ``expirations`` is.
    public func setDelegate(_ delegate: (any OperationExpirationDelegate<Operation>)?) {
        self.delegate = delegate
    }

    /// How many operations are watched.
    @inlinable
    public var count: Int { timer.count }

    /// The earliest deadline watched: the one the timer is armed for. `nil` when nothing is watched.
    @inlinable
    public var nextDeadline: Duration? { timer.earliestDeadline }

    /// The deadline of a watched operation, or `nil` when it is not watched.
    @inlinable
    public func deadline(of id: Operation.ID) -> Duration? { timer.deadline(of: id) }

    // MARK: - Changing what is watched

    /// Watches an operation, or moves it to a new deadline when one with the same id is watched.
    ///
    /// A deadline already past is reported at the next firing, which is armed at once.
    ///
    /// - Parameters:
    ///   - operation: The operation; its `id` keys it.
    ///   - deadline: When it expires, on the watcher's clock (compare ``now``).
    @inlinable
    public func add(_ operation: Operation, expiresAt deadline: Duration) {
        timer.schedule(operation, at: deadline)
    }

    /// Watches several operations (each as ``add(_:expiresAt:)`` would), re-arming the timer once.
    ///
    /// - Parameter operations: Operations and their deadlines on the watcher's clock.
    @inlinable
    public func add(contentsOf operations: some Sequence<(Operation, Duration)>) {
        timer.schedule(contentsOf: operations)
    }

    /// Stops watching an operation.
    ///
    /// - Returns: Whether it was watched.
    @inlinable
    @discardableResult
    public func remove(_ id: Operation.ID) -> Bool {
        timer.cancel(id) != nil
    }

    /// Stops watching everything, and disarms the timer.
    @inlinable
    public func removeAll() {
        timer.cancelAll()
    }

    /// Watches exactly `operations` from now on, re-arming the timer once; when an id appears more than
    /// once, its last entry counts.
    ///
    /// - Parameter operations: Operations and their deadlines on the watcher's clock.
    @inlinable
    public func replaceAll(with operations: some Sequence<(Operation, Duration)>) {
        timer.replaceAll(with: operations)
    }

    // MARK: - The timer

    /// Runs the watcher's timer until the calling task is cancelled: sleeps until the earliest deadline on the
    /// watcher's clock, re-arms when it moves, and reports what is due. Run it once, as a child of the
    /// owner's task group; without it, nothing expires. It holds the watcher weakly.
    public nonisolated func run() async {
        await timer.run { [weak self] due in await self?.report(due) }
    }

    private func report(_ due: [Operation]) {
        broadcaster.publish(due)
        delegate?.operationsExpired(due)
    }
}
