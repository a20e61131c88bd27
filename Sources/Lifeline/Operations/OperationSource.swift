/// Where an ``OperationList`` fetches the pending operations from: for Stoat, `GET /operations`.
///
/// A source makes one request per call and reports what the server said — the operations with their
/// expiries on the server's clock, the server's time, and how long the request took — without
/// interpreting any of it: the list converts the expiries once, when the answer arrives.
public protocol OperationSource<Operation>: Sendable {
    /// The operations the source lists.
    associatedtype Operation: Identifiable & Sendable where Operation.ID: Sendable

    /// Fetches the current list of pending operations.
    ///
    /// - Returns: The server's answer.
    /// - Throws: Whatever the request failed with; the list keeps what it shows and tries again later.
    ///   `CancellationError` when the calling task was cancelled.
    func fetchOperations() async throws -> OperationListing<Operation>
}
