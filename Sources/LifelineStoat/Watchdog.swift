import Lifeline
import LifelineCore
import Synchronization
import WSClient

/// The timers of one events socket: the connect timeout, the Ready deadline, the heartbeat and its Pong
/// timeout, on the session's clock.
///
/// One loop sleeps until the earliest deadline and wakes early whenever a deadline changes, so at most
/// one sleep is pending at a time and a test clock sees exactly the deadlines the specification names.
final class Watchdog: Sendable {
    private struct State {
        var connectDeadline: Duration?
        var readyDeadline: Duration?
        var nextPing: Duration?
        var pongDeadline: Duration?
        var pendingPing: Int64?
        var writer: WebSocketOutboundWriter?
        var isReady = false

        var earliest: Duration? {
            [connectDeadline, readyDeadline, nextPing, pongDeadline].compactMap { $0 }.min()
        }
    }

    private let clock: SessionClock
    private let configuration: StoatConnectionFactory.Configuration
    private let state: Mutex<State>
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(clock: SessionClock, configuration: StoatConnectionFactory.Configuration) {
        self.clock = clock
        self.configuration = configuration
        state = Mutex(State(connectDeadline: clock.elapsed() + configuration.connectTimeout))
        (wakes, wake) = AsyncStream.makeStream(of: Void.self)
    }

    /// The socket opened: the heartbeat starts.
    func opened(_ writer: WebSocketOutboundWriter) {
        let now = clock.elapsed()
        state.withLock { state in
            state.writer = writer
            state.nextPing = now + configuration.heartbeatInterval
        }
        wake.yield()
    }

    /// A message arrived: the connect timeout is met.
    func messageReceived() {
        let changed = state.withLock { state in
            defer { state.connectDeadline = nil }
            return state.connectDeadline != nil
        }
        if changed { wake.yield() }
    }

    /// `Authenticated` arrived: `Ready` is now due within the Ready timeout.
    func authenticated() {
        let now = clock.elapsed()
        state.withLock { state in
            if !state.isReady { state.readyDeadline = now + configuration.readyTimeout }
        }
        wake.yield()
    }

    /// `Ready` arrived. Returns `false` for a second `Ready`.
    func ready() -> Bool {
        let first = state.withLock { state in
            defer {
                state.isReady = true
                state.readyDeadline = nil
            }
            return !state.isReady
        }
        wake.yield()
        return first
    }

    /// A `Pong` arrived; only the one matching the outstanding `Ping` counts.
    func pong(_ data: Int64?) {
        let matched = state.withLock { state in
            guard let data, data == state.pendingPing else { return false }
            state.pendingPing = nil
            state.pongDeadline = nil
            return true
        }
        if matched { wake.yield() }
    }

    /// Writes a text frame on the open socket.
    func write(_ text: String) async throws {
        guard let writer = state.withLock({ $0.writer }) else {
            throw StoatConnectionError(message: "the socket is not open")
        }
        try await writer.write(.text(text))
    }

    /// Ends ``run()``.
    func stop() {
        wake.finish()
    }

    /// Runs until a deadline passes (returning the failure) or until stopped or cancelled.
    func run() async -> ConnectionEnd {
        var wakes = self.wakes.makeAsyncIterator()
        var sleeper: Task<Void, Never>?
        defer { sleeper?.cancel() }
        while true {
            sleeper?.cancel()
            sleeper = nil
            if let deadline = state.withLock({ $0.earliest }) {
                sleeper = Task { [clock, wake] in
                    guard (try? await clock.sleepUntil(deadline)) != nil else { return }
                    wake.yield()
                }
            }
            guard await wakes.next() != nil, !Task.isCancelled else { return .temporary(.socketDropped) }
            let now = clock.elapsed()
            let (end, ping) = evaluate(now)
            if let end { return end }
            if let (data, writer) = ping {
                do {
                    try await writer.write(.text(BonfireClientFrame.ping(data).json))
                } catch {
                    return .temporary(TemporaryFailureCause(.socketDropped, detail: "the heartbeat could not be written"))
                }
            }
        }
    }

    /// Which deadline passed at `now`, or which Ping to send.
    private func evaluate(_ now: Duration) -> (ConnectionEnd?, (Int64, WebSocketOutboundWriter)?) {
        state.withLock { state in
            if let deadline = state.connectDeadline, deadline <= now {
                return (.temporary(.init(.connectTimeout, detail: "no message within \(configuration.connectTimeout)")), nil)
            }
            if let deadline = state.readyDeadline, deadline <= now {
                return (.temporary(.init(.readyTimeout, detail: "no Ready within \(configuration.readyTimeout)")), nil)
            }
            if let deadline = state.pongDeadline, deadline <= now {
                return (.temporary(.init(.heartbeatTimeout, detail: "no Pong within \(configuration.pongTimeout)")), nil)
            }
            guard let due = state.nextPing, due <= now, let writer = state.writer else { return (nil, nil) }
            // The Ping's data is the session clock in milliseconds: an integer the server echoes.
            let data = Int64(now / .milliseconds(1))
            state.pendingPing = data
            state.pongDeadline = now + configuration.pongTimeout
            state.nextPing = now + configuration.heartbeatInterval
            return (nil, (data, writer))
        }
    }
}
