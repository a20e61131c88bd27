/// The platform's own wake monitor: what an app passes as `Session.Configuration.wakeMonitor`.
///
/// On Linux it is ``LinuxWakeMonitor``; on macOS and iOS `AppleWakeMonitor` (this project's Linux CI cannot
/// compile that branch: it is checked by building on a Mac); elsewhere a ``ManualWakeMonitor`` that never
/// reports, so the heartbeat alone finds a socket that died in a suspend.
public enum SystemWakeMonitor {
    /// The platform's monitor.
    ///
    /// - Parameter tick: How often ``LinuxWakeMonitor`` compares its clocks (ignored elsewhere).
    public static func make(tick: Duration = .seconds(2)) -> any WakeMonitor {
        #if os(Linux)
            LinuxWakeMonitor(tick: tick)
        #elseif (canImport(AppKit) && os(macOS)) || canImport(UIKit)
            AppleWakeMonitor()
        #else
            ManualWakeMonitor()
        #endif
    }
}
