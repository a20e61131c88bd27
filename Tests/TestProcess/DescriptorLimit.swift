#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The test process's limit on open descriptors.
///
/// Swift Testing starts every test of a run at once, each with its servers, sockets and pipes: a full `swift test`
/// holds about 1 700 descriptors at its peak (seen with `stress-ng --cpu 2` beside it). A shell's default soft limit
/// is often 1 024, and there the run crashed within its first minute. The soft limit may be raised up to the hard one
/// without privileges, as Go's runtime does for every program.
public enum DescriptorLimit {
    /// The soft limit this process asks for: far above the run's peak.
    public static let wanted = 16_384

    /// Raises the soft limit to ``wanted``, or to the hard limit when that is lower; once per process.
    public static func raise() { _ = raised }

    private static let raised: Bool = {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return false }
        let target = min(rlim_t(wanted), limit.rlim_max)
        guard limit.rlim_cur < target else { return true }
        limit.rlim_cur = target
        return setrlimit(resource, &limit) == 0
    }()

    /// The soft limit now.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        return Int(clamping: limit.rlim_cur)
    }

    #if canImport(Glibc)
        private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
}
