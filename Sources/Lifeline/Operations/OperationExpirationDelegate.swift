/// Told when watched operations expire, for those who prefer a delegate to
/// ``OperationExpirationWatcher/expirations``.
///
/// The watcher holds its delegate weakly and calls it synchronously on its own actor, once per batch, in
/// the order the batches expire; a delegate isolated elsewhere (say, to the main actor) hops there itself.
///
/// ```swift
/// final class Operations: OperationExpirationDelegate {
///     func operationsExpired(_ operations: [Ticket]) {
///         Task { await list.refresh() }      // never remove them locally: ask the server
///     }
/// }
/// ```
public protocol OperationExpirationDelegate<Operation>: AnyObject, Sendable {
    /// The operations the watcher reports.
    associatedtype Operation: Sendable

    /// Operations whose deadline has passed: one batch per firing of the watcher's timer, earliest first.
    ///
    /// The watcher has stopped watching them; it has removed them from nothing else. Refresh the list from
    /// the server rather than dropping them: the device's idea of the server's clock may be off.
    func operationsExpired(_ operations: [Operation])
}
