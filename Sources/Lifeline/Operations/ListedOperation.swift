public import LifelineCore

/// An operation as an ``OperationList`` shows it: the operation, its state, and when it expires.
public struct ListedOperation<Operation: Sendable>: Sendable {
    /// Where a listed operation stands, as far as the device can tell.
    public enum State: Sendable, Hashable {
        /// Not expired yet: it can be confirmed or rejected.
        case pending
        /// Its expiry has passed on the device's estimate of the server's clock, and a refresh has been
        /// asked for; it stays listed until the server's list no longer contains it. The interface may
        /// grey it out; it must not hide it.
        case expiredAwaitingRefresh
    }

    /// The operation.
    public var operation: Operation

    /// Its state.
    public var state: State

    /// Its expiry on the server's clock, as the server stated it; `nil` when it does not expire.
    public var serverExpiry: WallClockTime?

    /// Its expiry on the list's monotonic clock (see ``OperationList/now``), converted once when the list
    /// arrived; `nil` when it does not expire.
    public var deadline: Duration?

    /// Creates a listed operation.
    public init(_ operation: Operation, state: State, serverExpiry: WallClockTime?, deadline: Duration?) {
        self.operation = operation
        self.state = state
        self.serverExpiry = serverExpiry
        self.deadline = deadline
    }
}

extension ListedOperation: Equatable where Operation: Equatable {}
