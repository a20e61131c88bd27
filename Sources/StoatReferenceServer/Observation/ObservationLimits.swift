/// How much of what it observes the reference server keeps, so that `lifeline serve` can run for days, and
/// through long soaks, with flat memory: each record is bounded, and what falls out of it is counted.
///
/// Tests read frames and connections back through ``ReferenceServer/connections()``,
/// ``ReferenceServer/receivedFrames(token:)`` and ``ReferenceServer/loadReport(closedAfter:)``; the defaults
/// hold every test's and benchmark's whole story (a storm of 10 000 sessions closes 10 000 connections at once).
public struct ObservationLimits: Sendable, Equatable {
    /// The most client frames kept per connection, the newest; older ones are counted in
    /// ``ConnectionRecord/droppedFrames``. Default 1 000.
    public var framesPerConnection: Int
    /// The most `Subscribe`d and lapsed servers kept per connection, the newest. Default 1 000.
    public var subscriptionsPerConnection: Int
    /// The most closed connections kept, the latest; older ones are counted
    /// (``LoadReport/closedCount`` counts them all). Default 20 000.
    public var closedConnections: Int
    /// The most 100 ms bins of socket arrivals kept after a mark (an hour); later arrivals are counted in
    /// ``ArrivalHistogram/late``. Default 36 000.
    public var arrivalBins: Int

    /// Creates limits; each is at least 1.
    public init(
        framesPerConnection: Int = 1_000, subscriptionsPerConnection: Int = 1_000, closedConnections: Int = 20_000,
        arrivalBins: Int = 36_000
    ) {
        self.framesPerConnection = max(1, framesPerConnection)
        self.subscriptionsPerConnection = max(1, subscriptionsPerConnection)
        self.closedConnections = max(1, closedConnections)
        self.arrivalBins = max(1, arrivalBins)
    }

    /// The defaults.
    public static let standard = ObservationLimits()
}

extension Array {
    /// Appends `element`, then drops the oldest elements beyond `limit` (in batches of a quarter of it, so that
    /// a full record costs an amortised constant per append); returns how many were dropped.
    @discardableResult
    mutating func append(_ element: Element, keepingAtMost limit: Int) -> Int {
        append(element)
        guard count > limit + limit / 4 else { return 0 }
        let excess = count - limit
        removeFirst(excess)
        return excess
    }
}
