/// A network monitor whose status is set by hand: for tests, for the command line's `--network manual`,
/// and for apps that learn about the network some other way.
public final class ManualNetworkMonitor: NetworkMonitor {
    /// The status and its subscribers. A status is a state, so a subscriber that does not read keeps only the
    /// newest 16 changes: enough that a quick loss and return reaches a reader as both, bounded however long it
    /// does not read.
    private let broadcaster: Broadcaster<NetworkStatus>

    /// Creates a monitor.
    ///
    /// - Parameter status: The status it reports until ``set(_:)`` changes it.
    public init(_ status: NetworkStatus = .online) {
        broadcaster = Broadcaster(current: status, buffering: .newest(Self.bufferedChanges))
    }

    /// How many unread changes a subscriber keeps.
    static let bufferedChanges = 16

    /// The status it reports now.
    public var status: NetworkStatus { broadcaster.current ?? .online }

    /// Sets the status and tells every subscriber, if it changed.
    public func set(_ status: NetworkStatus) {
        broadcaster.publishIfChanged(status)
    }

    /// The current status, then every change.
    public func statuses() -> AsyncStream<NetworkStatus> {
        broadcaster.subscribe()
    }
}
