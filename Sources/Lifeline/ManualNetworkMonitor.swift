import Synchronization

/// A network monitor whose status is set by hand: for tests, for the command line's `--network manual`,
/// and for apps that learn about the network some other way.
public final class ManualNetworkMonitor: NetworkMonitor {
    private struct State {
        var status: NetworkStatus
        var subscribers: [Int: AsyncStream<NetworkStatus>.Continuation] = [:]
        var nextID = 0
    }

    private let state: Mutex<State>

    /// Creates a monitor.
    ///
    /// - Parameter status: The status it reports until ``set(_:)`` changes it.
    public init(_ status: NetworkStatus = .online) {
        state = Mutex(State(status: status))
    }

    /// The status it reports now.
    public var status: NetworkStatus { state.withLock { $0.status } }

    /// Sets the status and tells every subscriber, if it changed.
    public func set(_ status: NetworkStatus) {
        let subscribers = state.withLock { state -> [AsyncStream<NetworkStatus>.Continuation] in
            guard state.status != status else { return [] }
            state.status = status
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(status) }
    }

    /// The current status, then every change.
    public func statuses() -> AsyncStream<NetworkStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: NetworkStatus.self)
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = continuation
            continuation.yield(state.status)
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }
}
