/// ``ReferenceServer/waitUntil(timeout:_:)`` gave up: the condition did not hold in time.
public struct ObservationTimeout: Error, Sendable, CustomStringConvertible {
    /// The bound that was reached.
    public let timeout: Duration

    /// A human-readable message.
    public var description: String { "The server did not reach the expected state within \(timeout)" }
}
