public import Lifeline
public import LifelineCore
import Synchronization

/// One connection of a ``ScriptedConnectionFactory``, played by the test.
public final class ScriptedConnection: SessionConnection {
    private struct State {
        var report: (@Sendable (ConnectionEvent) async -> Void)?
        var finish: CheckedContinuation<Void, Never>?
        var finished = false
        var wasCancelled = false
        var running = false
        var played: [SignificantEvent] = []
        var attempts: [SignificantEvent] = []
        var socketChecks = 0
        var checksAnswered = false
        var checkWaiters = WaiterSet()
        var finishWaiters = WaiterSet()
    }

    /// The session it connects with.
    public let credentials: SessionCredentials
    /// Its generation number.
    public let generation: UInt64
    private let factory: ScriptedConnectionFactory
    private let state = Mutex(State())

    init(credentials: SessionCredentials, generation: UInt64, factory: ScriptedConnectionFactory) {
        self.credentials = credentials
        self.generation = generation
        self.factory = factory
    }

    /// Closes the connection, as the session does when it is done with it: like a cancellation, `run`
    /// returns at once (or, with ``ScriptedConnectionFactory/closesSlowly``, when the test says so).
    public func close() {
        state.withLock { $0.wasCancelled = true }
        if !factory.closesSlowly { finishRun() }
    }

    /// Whether the session closed (or cancelled) this connection.
    public var wasCancelled: Bool { state.withLock { $0.wasCancelled } }

    /// The significant events played successfully on this connection, in order.
    public var played: [SignificantEvent] { state.withLock { $0.played } }

    /// Every attempt to play a significant event on this connection, failed ones included.
    public var attempts: [SignificantEvent] { state.withLock { $0.attempts } }

    /// Plays an event as the factory scripts it: success by default, or failure, or a hang.
    public func play(_ event: SignificantEvent) async throws {
        let running = state.withLock { state in
            state.attempts.append(event)
            return state.running && !state.finished
        }
        guard running else { throw ScriptedError(code: .notRunning, message: "the connection is not running") }
        let behaviour = factory.playBehaviour(event)
        if behaviour.hangs {
            // Like a write on a socket that takes nothing: until the connection ends or the task is cancelled.
            await untilFinished()
            throw ScriptedError(code: .notRunning, message: "the connection ended while \(event) was played")
        }
        if behaviour.fails { throw ScriptedError(message: "scripted failure of \(event)") }
        state.withLock { $0.played.append(event) }
    }

    /// Starts a play: with ``ScriptedConnectionFactory/answersPlaysAtOnce``, answered at once as the factory
    /// scripts it (a hanging play is awaited); otherwise awaited through ``play(_:)``.
    public func startPlay(_ event: SignificantEvent) -> PlayStart {
        guard factory.answersPlaysAtOnce else { return .pending { try await self.play(event) } }
        let running = state.withLock { state in
            state.attempts.append(event)
            return state.running && !state.finished
        }
        guard running else {
            return .failed(ScriptedError(code: .notRunning, message: "the connection is not running"))
        }
        let behaviour = factory.playBehaviour(event)
        if behaviour.hangs {
            return .pending {
                await self.untilFinished()
                throw ScriptedError(code: .notRunning, message: "the connection ended while \(event) was played")
            }
        }
        if behaviour.fails { return .failed(ScriptedError(message: "scripted failure of \(event)")) }
        state.withLock { $0.played.append(event) }
        return .succeeded
    }

    /// How many checks of the socket the session made on this connection (``startSocketCheck()``).
    public var socketChecks: Int { state.withLock { $0.socketChecks } }

    /// Checks the socket as the factory scripts it (``ScriptedConnectionFactory/answersSocketChecks``): answered at
    /// once, or — a dead socket — only when the test says so (``answerSocketChecks()``), failing when the
    /// connection ends first. A connection that is not running fails it.
    public func startSocketCheck() -> PlayStart {
        let running = state.withLock { state in
            state.socketChecks += 1
            return state.running && !state.finished
        }
        guard running else {
            return .failed(ScriptedError(code: .notRunning, message: "the connection is not running"))
        }
        guard factory.answersSocketChecks else {
            return .pending {
                await self.state.wait(on: \.checkWaiters) { $0.finished || $0.checksAnswered }
                guard self.state.withLock({ $0.checksAnswered && !$0.finished }) else {
                    throw ScriptedError(code: .notRunning, message: "the connection ended while its socket was checked")
                }
            }
        }
        return .succeeded
    }

    /// Answers the checks of the socket waiting on this connection, and every later one (when the factory's
    /// ``ScriptedConnectionFactory/answersSocketChecks`` is `false`): a `Pong` that came late.
    public func answerSocketChecks() {
        let waiters = state.withLock { state in
            state.checksAnswered = true
            return state.checkWaiters.takeAll()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether the connection's `run` has returned.
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Runs until the test ends the connection or the session cancels it.
    public func run(reporting report: @escaping @Sendable (ConnectionEvent) async -> Void) async {
        state.withLock { state in
            state.report = report
            state.running = true
        }
        factory.connectionStarted(self)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let finishNow = state.withLock { state in
                    if state.finished { return true }
                    state.finish = continuation
                    return false
                }
                if finishNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.wasCancelled = true }
            if !factory.closesSlowly { finishRun() }
        }
        factory.connectionStopped()
    }

    /// Reports that the socket opened.
    public func open() async { await report(.opened) }

    /// Reports that the server accepted the session.
    public func authenticate() async { await report(.authenticated) }

    /// Reports that the initial data loaded; the session has handled SOCKET_CONNECTED when this returns.
    public func ready() async { await report(.ready) }

    /// Reports any milestone, even one out of order, as a misbehaving protocol might.
    public func report(_ event: ConnectionEvent) async {
        let report = state.withLock { $0.report }
        await report?(event)
    }

    /// Ends the connection: reports why, then returns from `run`. The session has handled the end when
    /// this returns.
    public func end(_ end: SessionFailure) async {
        await report(.ended(end))
        finishRun()
    }

    /// Lets a cancelled connection that is closing slowly finish closing; does nothing otherwise.
    public func finishClosing() {
        if wasCancelled { finishRun() }
    }

    /// Ends the connection without saying why: `run` simply returns, as a transport that lost its socket.
    public func vanish() {
        finishRun()
    }

    private func finishRun() {
        let (continuation, waiters) = state.withLock { state in
            state.finished = true
            defer { state.finish = nil }
            return (state.finish, state.finishWaiters.takeAll() + state.checkWaiters.takeAll())
        }
        continuation?.resume()
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the connection has finished, or when the calling task is cancelled.
    private func untilFinished() async {
        await state.wait(on: \.finishWaiters) { $0.finished }
    }
}
