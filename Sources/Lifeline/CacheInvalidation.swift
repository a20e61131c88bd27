/// Invalidates the app's cached data (message history, members list) when the session enters
/// RECONNECTING, because events may have been missed while it was disconnected.
public protocol CacheInvalidation: Sendable {
    /// Drops the cached data that may be stale. Called once per entry into RECONNECTING, before the
    /// connection is opened.
    func invalidateCaches() async

    /// Discards every cached datum when the client is disposed of (DISPOSE), before READY.
    /// By default, ``invalidateCaches()``.
    func discardCaches() async
}

extension CacheInvalidation {
    /// Calls ``invalidateCaches()``.
    public func discardCaches() async { await invalidateCaches() }
}
