public import Lifeline
public import LifelineCore
import Synchronization

/// A `ConnectionFactory` whose connections a test plays by hand: it opens them, makes them ready, ends
/// them — and counts how many run at once.
///
/// ```swift
/// let connection = await factory.nextConnection()     // the session started connecting
/// await connection.ready()                             // SOCKET_CONNECTED has been handled on return
/// await connection.end(.temporary(.socketDropped))    // TEMPORARY_FAILURE
/// ```
public final class ScriptedConnectionFactory: ConnectionFactory {
    private struct State {
        var made = 0
        var running = 0
        var mostRunning = 0
        var started: [ScriptedConnection] = []
        var closesSlowly = false
        var answersPlaysAtOnce = false
        var answersSocketChecks = true
        var failingPlays: Set<SignificantEvent> = []
        var hangingPlays: Set<SignificantEvent> = []
        var unclaimed: [ScriptedConnection] = []
        var claimants: [CheckedContinuation<ScriptedConnection, Never>] = []
    }

    private let state = Mutex(State())

    /// Creates a factory.
    public init() {}

    /// How many connections the session asked for.
    public var made: Int { state.withLock { $0.made } }

    /// How many connections are running now.
    public var running: Int { state.withLock { $0.running } }

    /// Whether a cancelled connection keeps running until the test calls
    /// ``ScriptedConnection/finishClosing()``, like a socket that takes a while to close. Default `false`.
    public var closesSlowly: Bool {
        get { state.withLock { $0.closesSlowly } }
        set { state.withLock { $0.closesSlowly = newValue } }
    }

    /// Whether its connections answer a play at once (``ScriptedConnection/startPlay(_:)`` says succeeded or
    /// failed without a suspension, as a socket with room does) rather than through an awaited
    /// ``ScriptedConnection/play(_:)``. A hanging play is awaited either way. Default `false`.
    public var answersPlaysAtOnce: Bool {
        get { state.withLock { $0.answersPlaysAtOnce } }
        set { state.withLock { $0.answersPlaysAtOnce = newValue } }
    }

    /// Whether its connections' sockets answer a check at once (``ScriptedConnection/startSocketCheck()``), as a
    /// live socket answers a `Ping`; `false` for a check that waits for ``ScriptedConnection/answerSocketChecks()``
    /// — never called for a socket that died in a suspend. Default `true`.
    public var answersSocketChecks: Bool {
        get { state.withLock { $0.answersSocketChecks } }
        set { state.withLock { $0.answersSocketChecks = newValue } }
    }

    /// Makes every play of these events fail (throw) until changed.
    public func failPlays(of events: Set<SignificantEvent>) { state.withLock { $0.failingPlays = events } }

    /// Makes every play of these events hang until the connection ends (as a write that a socket never
    /// takes), whatever the session decides about it meanwhile.
    public func hangPlays(of events: Set<SignificantEvent>) { state.withLock { $0.hangingPlays = events } }

    func playBehaviour(_ event: SignificantEvent) -> (fails: Bool, hangs: Bool) {
        state.withLock { ($0.failingPlays.contains(event), $0.hangingPlays.contains(event)) }
    }

    /// Stops closing slowly and lets every cancelled connection finish closing.
    public func finishClosingAll() {
        let connections = state.withLock { state in
            state.closesSlowly = false
            return state.started
        }
        for connection in connections { connection.finishClosing() }
    }

    /// Every connection whose `run` started, in order.
    public var started: [ScriptedConnection] { state.withLock { $0.started } }

    /// The most connections that ever ran at the same time: 1 for a session that behaves.
    public var mostRunning: Int { state.withLock { $0.mostRunning } }

    /// Makes a scripted connection.
    public func makeConnection(for credentials: SessionCredentials, generation: UInt64) -> any SessionConnection {
        state.withLock { $0.made += 1 }
        return ScriptedConnection(credentials: credentials, generation: generation, factory: self)
    }

    /// Waits until the session starts running its next connection and returns it, in order.
    public func nextConnection() async -> ScriptedConnection {
        await withCheckedContinuation { (continuation: CheckedContinuation<ScriptedConnection, Never>) in
            let ready: ScriptedConnection? = state.withLock { state in
                guard !state.unclaimed.isEmpty else {
                    state.claimants.append(continuation)
                    return nil
                }
                return state.unclaimed.removeFirst()
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func connectionStarted(_ connection: ScriptedConnection) {
        let claimant = state.withLock { state -> CheckedContinuation<ScriptedConnection, Never>? in
            state.running += 1
            state.mostRunning = max(state.mostRunning, state.running)
            state.started.append(connection)
            guard !state.claimants.isEmpty else {
                state.unclaimed.append(connection)
                return nil
            }
            return state.claimants.removeFirst()
        }
        claimant?.resume(returning: connection)
    }

    func connectionStopped() {
        state.withLock { $0.running -= 1 }
    }
}
