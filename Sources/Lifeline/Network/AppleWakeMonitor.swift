#if canImport(AppKit) && os(macOS)
    import AppKit

    /// The device's wakes on macOS, from `NSWorkspace.didWakeNotification`.
    public struct AppleWakeMonitor: WakeMonitor {
        /// Creates a monitor.
        public init() {}

        /// Every wake after the call, until the iterating task is cancelled.
        public func wakes() -> AsyncStream<DeviceWake> {
            let (stream, continuation) = AsyncStream.makeStream(of: DeviceWake.self)
            let center = NSWorkspace.shared.notificationCenter
            let observer = center.addObserver(forName: NSWorkspace.didWakeNotification, object: nil, queue: nil) { _ in
                continuation.yield(DeviceWake())
            }
            let token = UncheckedObserver(observer)
            continuation.onTermination = { _ in center.removeObserver(token.observer) }
            return stream
        }
    }
#elseif canImport(UIKit)
    import UIKit

    /// The app's returns to the foreground on iOS, from `UIApplication.willEnterForegroundNotification`: an app
    /// in the background is suspended, and its socket with it.
    public struct AppleWakeMonitor: WakeMonitor {
        /// Creates a monitor.
        public init() {}

        /// Every return to the foreground after the call, until the iterating task is cancelled.
        public func wakes() -> AsyncStream<DeviceWake> {
            let (stream, continuation) = AsyncStream.makeStream(of: DeviceWake.self)
            let center = NotificationCenter.default
            let observer = center.addObserver(
                forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil
            ) { _ in
                continuation.yield(DeviceWake())
            }
            let token = UncheckedObserver(observer)
            continuation.onTermination = { _ in center.removeObserver(token.observer) }
            return stream
        }
    }
#endif

#if (canImport(AppKit) && os(macOS)) || canImport(UIKit)
    /// A notification observer handed to the stream's termination handler (the center's token is not
    /// `Sendable`, and is only passed back to the center).
    private struct UncheckedObserver: @unchecked Sendable {
        let observer: any NSObjectProtocol
        init(_ observer: any NSObjectProtocol) { self.observer = observer }
    }
#endif
