public import Logging

/// The platform's own network monitor: what ``Session`` and `StoatClient` use when they are given none.
///
/// On Linux it is ``LinuxNetworkMonitor`` (rtnetlink); on Apple's systems `AppleNetworkMonitor`
/// (`NWPathMonitor`, which this project's Linux CI cannot compile: that branch is checked by building on a Mac);
/// elsewhere, and on Linux where the routing socket cannot be opened (a sandbox without netlink), the network is
/// assumed online — said once in the log at `warning` — so a session never goes OFFLINE by itself there. Tests
/// that need a deterministic network pass a ``ManualNetworkMonitor`` explicitly.
public enum SystemNetworkMonitor {
    /// The platform's monitor, logging to `logger` when it has to assume the network online.
    public static func make(
        logger: Logger = Logger(label: "lifeline.network", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> any NetworkMonitor {
        #if os(Linux)
            LinuxNetworkMonitor(logger: logger)
        #elseif canImport(Network)
            AppleNetworkMonitor()
        #else
            logger.warning("no network monitor on this platform: the network is assumed online")
            return ManualNetworkMonitor(.online)
        #endif
    }
}
