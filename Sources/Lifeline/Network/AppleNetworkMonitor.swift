#if canImport(Network)
    import Network

    /// The device's network on Apple platforms, from `NWPathMonitor`: online while the path is satisfied.
    public struct AppleNetworkMonitor: NetworkMonitor {
        /// Creates a monitor.
        public init() {}

        /// The current status, then each change, until the iterating task is cancelled.
        public func statuses() -> AsyncStream<NetworkStatus> {
            let (stream, continuation) = AsyncStream.makeStream(of: NetworkStatus.self)
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = { path in
                continuation.yield(path.status == .satisfied ? .online : .offline)
            }
            continuation.onTermination = { _ in monitor.cancel() }
            monitor.start(queue: DispatchQueue(label: "lifeline.network"))
            return stream
        }
    }
#endif
