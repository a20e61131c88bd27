#if os(Linux)
    import Dispatch
    import Glibc
    public import Logging
    import Synchronization

    /// The device's network on Linux, from the kernel's routing socket (rtnetlink).
    ///
    /// The monitor subscribes to link and address changes (`RTMGRP_LINK`, `RTMGRP_IPV4_IFADDR`,
    /// `RTMGRP_IPV6_IFADDR`) and, on each, re-reads the interfaces with `getifaddrs`: the device is
    /// *online* while at least one interface other than loopback is up and running with an IPv4 address or
    /// an IPv6 address that is not link-local. So a machine whose last such interface goes down is offline,
    /// and comes back online when one returns. No polling and no thread: a Dispatch read source wakes on the
    /// kernel's messages.
    public struct LinuxNetworkMonitor: NetworkMonitor {
        private let logger: Logger

        /// Creates a monitor.
        ///
        /// - Parameter logger: Where the monitor says that it cannot open the routing socket (at `warning`);
        ///   silent by default.
        public init(logger: Logger = Logger(label: "lifeline.network", factory: { _ in SwiftLogNoOpLogHandler() })) {
            self.logger = logger
        }

        /// The status now, read from the interfaces.
        public static var currentStatus: NetworkStatus {
            var list: UnsafeMutablePointer<ifaddrs>?
            guard getifaddrs(&list) == 0 else { return .online }  // cannot tell: do not claim offline
            defer { freeifaddrs(list) }
            var entry = list
            while let current = entry?.pointee {
                defer { entry = current.ifa_next }
                let flags = Int32(bitPattern: current.ifa_flags)
                guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_RUNNING) != 0,
                    flags & Int32(IFF_LOOPBACK) == 0, let address = current.ifa_addr
                else { continue }
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    return .online
                case AF_INET6:
                    let isLinkLocal = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        $0.pointee.sin6_addr.__in6_u.__u6_addr8.0 == 0xfe
                            && $0.pointee.sin6_addr.__in6_u.__u6_addr8.1 & 0xc0 == 0x80
                    }
                    if !isLinkLocal { return .online }
                default:
                    continue
                }
            }
            return .offline
        }

        /// The current status, then each change, until the iterating task is cancelled.
        ///
        /// If the routing socket cannot be opened, the stream reports ``NetworkStatus/online`` once and never
        /// changes, and the monitor logs it: the session then never goes OFFLINE by itself, which is the safe
        /// failure.
        public func statuses() -> AsyncStream<NetworkStatus> {
            let (stream, continuation) = AsyncStream.makeStream(of: NetworkStatus.self)
            guard let watcher = RoutingSocketWatcher(onChange: { continuation.yield($0) }) else {
                logger.warning(
                    "the routing socket (rtnetlink) cannot be opened: the network is assumed online",
                    metadata: ["lifeline.errno": "\(errno)"])
                continuation.yield(.online)
                return stream
            }
            continuation.onTermination = { _ in watcher.stop() }
            watcher.start()
            return stream
        }
    }

    /// One rtnetlink socket and the Dispatch source that reads it.
    ///
    /// `@unchecked Sendable` because of the `DispatchSourceRead`, which Dispatch documents as safe to use
    /// from any thread (`resume` and `cancel` are thread-safe); every other property is immutable or a `Mutex`.
    private final class RoutingSocketWatcher: @unchecked Sendable {
        private let descriptor: Int32
        private let source: any DispatchSourceRead
        private let last = Mutex<NetworkStatus?>(nil)
        private let onChange: @Sendable (NetworkStatus) -> Void

        init?(onChange: @escaping @Sendable (NetworkStatus) -> Void) {
            let descriptor = socket(
                AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard descriptor >= 0 else { return nil }
            // struct sockaddr_nl { sa_family_t nl_family; unsigned short nl_pad; __u32 nl_pid; __u32 nl_groups; }
            var address = NetlinkAddress(
                family: sa_family_t(AF_NETLINK), pad: 0, pid: 0,
                groups: Self.linkGroup | Self.ipv4AddressGroup | Self.ipv6AddressGroup)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<NetlinkAddress>.size))
                }
            }
            guard bound == 0 else {
                close(descriptor)
                return nil
            }
            self.descriptor = descriptor
            self.onChange = onChange
            source = DispatchSource.makeReadSource(
                fileDescriptor: descriptor, queue: DispatchQueue(label: "lifeline.network"))
        }

        /// `RTMGRP_LINK`, `RTMGRP_IPV4_IFADDR`, `RTMGRP_IPV6_IFADDR` from `linux/rtnetlink.h`.
        private static let linkGroup: UInt32 = 0x1
        private static let ipv4AddressGroup: UInt32 = 0x10
        private static let ipv6AddressGroup: UInt32 = 0x100

        func start() {
            source.setEventHandler { [self] in
                // The messages only say that something changed; drain them and read the interfaces.
                var buffer = [UInt8](repeating: 0, count: 16_384)
                while buffer.withUnsafeMutableBytes({ recv(descriptor, $0.baseAddress, $0.count, 0) }) > 0 {}
                report()
            }
            source.setCancelHandler { [descriptor] in close(descriptor) }
            source.resume()
            report()
        }

        func stop() {
            source.cancel()
        }

        private func report() {
            let status = LinuxNetworkMonitor.currentStatus
            let changed = last.withLock { last in
                defer { last = status }
                return last != status
            }
            if changed { onChange(status) }
        }
    }

    /// The layout of `struct sockaddr_nl`.
    private struct NetlinkAddress {
        var family: sa_family_t
        var pad: UInt16
        var pid: UInt32
        var groups: UInt32
    }
#endif
