/// Something that happened to an ``OperationList``, for logs and command lines; the interface reads
/// ``OperationList/lists`` instead.
public enum OperationListEvent<Operation: Sendable>: Sendable {
    /// A refresh arrived; the list now shows these operations.
    case refreshed([ListedOperation<Operation>])
    /// The watcher's timer fired for these operations; a refresh has been asked for.
    case expired([Operation])
    /// A refresh failed; the list still shows what it showed.
    case refreshFailed(any Error)
}
