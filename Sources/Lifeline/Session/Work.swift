import Synchronization

/// One piece of a session's work running in ``Session/run()``'s task group — a connection, a check, a
/// lookup, health polling, a play (a timer is an entry in the session's `DeadlineTimer`, not work) — with
/// the two handles a structured task lacks: a way to stop it early and a way to wait until it has ended.
///
/// Stopping uses no `Task` handle: work that may be stopped runs inside ``race(_:)``, whose body is
/// cancelled when ``cancel()`` is called (the pattern of postgres-nio's timer cancellation tokens); a
/// connection is closed through its own ``SessionConnection/close()`` (``attach(_:)``).
package final class Work: Sendable {
    private struct State {
        var cancelled = false
        var ended = false
        var connection: (any SessionConnection)?
        var cancellationWaiters = WaiterSet()
        var endWaiters = WaiterSet()
    }

    /// Whether the current client owns it: DISPOSE stops it and waits for its end.
    let isClientWork: Bool
    /// Whether it runs a connection: the next connection waits for its end.
    let isConnection: Bool
    private let state = Mutex(State())

    package init(client: Bool, connection: Bool = false) {
        isClientWork = client
        isConnection = connection
    }

    /// The connection the work runs (``attach(_:)``), until the work ends: what the session plays through.
    var connection: (any SessionConnection)? { state.withLock { $0.connection } }

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Stops the work: a ``race(_:)`` in progress ends with `nil`, an attached connection is closed, and a
    /// connection attached later is closed at once.
    package func cancel() {
        let (waiters, connection) = state.withLock { state in
            guard !state.cancelled else {
                return ([CheckedContinuation<Void, Never>](), nil as (any SessionConnection)?)
            }
            state.cancelled = true
            return (state.cancellationWaiters.takeAll(), state.connection)
        }
        for waiter in waiters { waiter.resume() }
        connection?.close()
    }

    /// Records that the work has ended: every ``ended()`` returns.
    package func finish() {
        let waiters = state.withLock { state in
            state.ended = true
            state.connection = nil
            return state.endWaiters.takeAll()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Attaches the connection the work runs, so that ``cancel()`` closes it.
    ///
    /// - Returns: `false` when the work was cancelled already: the connection is not to be run.
    package func attach(_ connection: any SessionConnection) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.connection = connection
            return true
        }
    }

    /// Runs `body` until it returns or the work is cancelled, whichever comes first.
    ///
    /// - Returns: What `body` returned, or `nil` when the work was cancelled first (then `body`'s task was
    ///   cancelled and has ended).
    package func race<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask { await body() }
            group.addTask {
                await self.untilCancelled()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Returns once ``finish()`` was called, or when the waiting task is cancelled.
    package func ended() async {
        await state.wait(on: \.endWaiters) { $0.ended }
    }

    /// Returns once ``cancel()`` was called, or when the waiting task is cancelled: the child a task group
    /// adds to race its own children against the work's cancellation.
    func untilCancelled() async {
        await state.wait(on: \.cancellationWaiters) { $0.cancelled }
    }
}

extension Work: Hashable {
    /// A piece of work is itself: the token `SessionMachine` holds for the live connection.
    package static func == (lhs: Work, rhs: Work) -> Bool { lhs === rhs }

    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
