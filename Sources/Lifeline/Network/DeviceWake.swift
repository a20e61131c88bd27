import LifelineCore
import Logging

/// The device woke from a suspend: what a ``WakeMonitor`` reports.
public struct DeviceWake: Sendable, Hashable {
    /// How long the device was suspended, when the monitor can tell (``LinuxWakeMonitor`` can, from how far
    /// `CLOCK_BOOTTIME` ran ahead of `CLOCK_MONOTONIC`); `nil` when it cannot (a system's wake notification).
    public var suspended: Duration?

    /// Creates a report.
    ///
    /// - Parameter suspended: How long the device was suspended, if known.
    public init(suspended: Duration? = nil) {
        self.suspended = suspended
    }
}

extension DeviceWake {
    /// The wake's log metadata: the session's state, and how long the device was suspended when known.
    func logMetadata(in state: SessionState) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["lifeline.state": "\(state.rawValue)"]
        if let suspended { metadata["lifeline.suspended"] = "\(suspended)" }
        return metadata
    }
}
