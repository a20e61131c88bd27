public import LifelineCore

/// One connection's whole life: open, authenticate, load the initial data, stay connected, end.
public protocol SessionConnection: Sendable {
    /// Runs the connection until it ends, reporting each milestone in order.
    ///
    /// The connection reports ``ConnectionEvent/ready`` once the initial data has loaded, and exactly one
    /// ``ConnectionEvent/ended(_:)`` when it ends by itself, then returns. When ``close()`` is called, or
    /// the calling task is cancelled, the connection closes at once — without waiting for the peer — and
    /// returns; it need not report anything then. Reports after that are ignored by the runtime.
    ///
    /// - Parameter report: Called with each milestone; awaiting it applies back-pressure.
    func run(reporting report: @escaping @Sendable (ConnectionEvent) async -> Void) async

    /// Closes the connection at once, without waiting for the peer: ``run(reporting:)`` returns soon after.
    ///
    /// The runtime calls it when the lifecycle is done with the connection (a logout, a failure, a new
    /// attempt), from any task, perhaps before `run` has started (then `run` returns at once) and perhaps
    /// more than once. It is how a session stops one connection inside its task group without a `Task`
    /// handle.
    func close()

    /// Starts playing a significant event (a subscription, a typing indicator) on the connection: answers at
    /// once when its success criterion — an awaited answer, or, where the protocol sends none, the frame
    /// written — is already met (or the play already failed), or what to await for it.
    ///
    /// An answer given at once costs the session no task and no timeout: a replay of 1 000 subscriptions on a
    /// socket with room is played in one turn of the session. A play that cannot be played (the connection is
    /// not open, the write failed, the protocol has no such event) fails; the session retries it up to its
    /// limit.
    ///
    /// - Returns: The play's answer, or what to await for it (called once, in a task of the session's).
    func startPlay(_ event: SignificantEvent) -> PlayStart

    /// Checks at once that the connection still carries frames both ways: sends what the peer must answer
    /// straight away (Stoat: a `Ping`, answered by a `Pong` with its data), and says what to await for the
    /// answer. The session calls it when the device woke from a suspend (`SessionEvent.deviceWoke`), and
    /// keeps the deadline itself (`SessionMachine.wakeCheckTimeout`).
    ///
    /// - Returns: ``PlayStart/pending(_:)`` whose closure returns when the peer answered and throws when the
    ///   connection ended or was closed first (or the task was cancelled); ``PlayStart/failed(_:)`` when the
    ///   connection is not open; ``PlayStart/succeeded`` when the connection knows at once that it is alive.
    func startSocketCheck() -> PlayStart
}

/// How a play of a significant event started (``SessionConnection/startPlay(_:)``).
public enum PlayStart: Sendable {
    /// The play met its success criterion already (the frame was taken by the open socket).
    case succeeded
    /// The play failed already (the socket is not open, the event has no frame).
    case failed(any Error)
    /// The play's answer is to be awaited: the closure returns when it succeeded and throws when it failed.
    case pending(@Sendable () async throws -> Void)
}

extension PlayStart {
    /// Whether the play (or the check) succeeded, awaiting its answer when it is pending.
    func succeeded() async -> Bool {
        switch self {
        case .succeeded: true
        case .failed: false
        case .pending(let answer): (try? await answer()) != nil
        }
    }
}

/// A session's piece of work, whose attachment is the connection it runs (``SessionConnection``).
typealias SessionWork = Work<any SessionConnection>
