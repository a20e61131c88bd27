public import LifelineCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension WallClockTime {
    /// The device's wall clock now (`CLOCK_REALTIME`). Lifeline reads it only when a server's answer
    /// states no time of its own, and then once, when the answer arrives.
    public static func deviceNow() -> WallClockTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return WallClockTime(sinceEpoch: .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec)))
    }
}
