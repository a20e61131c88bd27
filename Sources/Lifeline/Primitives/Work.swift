import Synchronization

/// A stoppable child of an engine's task group (a session's connection, check, lookup or play, a catch-up pass)
/// with the two handles a structured child task lacks: stop it early, wait until it has ended.
///
/// No `Task` handle: work that may be stopped runs in ``race(_:)``, whose body is cancelled on ``cancel()``
/// (as postgres-nio's timer cancellation tokens); what closes itself (a connection) is attached and closed.
package final class Work<Attachment: Sendable>: Sendable {
    private struct State {
        var cancelled = false
        var ended = false
        var attachment: Attachment?
        var close: (@Sendable () -> Void)?
        var cancellationWaiters = WaiterSet()
        var endWaiters = WaiterSet()
    }

    private let state = Mutex(State())

    package init() {}

    /// What the work runs (``attach(_:closing:)``), until it ends: what a session plays through.
    var attachment: Attachment? { state.withLock { $0.attachment } }

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Stops the work: a ``race(_:)`` ends with `nil`, an attachment is closed, and one attached later refused.
    package func cancel() {
        let (waiters, close) = state.withLock { state in
            guard !state.cancelled else {
                return ([CheckedContinuation<Void, Never>](), nil as (@Sendable () -> Void)?)
            }
            state.cancelled = true
            return (state.cancellationWaiters.takeAll(), state.close)
        }
        for waiter in waiters { waiter.resume() }
        close?()
    }

    /// Records that the work has ended: every ``ended()`` returns.
    package func finish() {
        let waiters = state.withLock { state in
            state.ended = true
            state.attachment = nil
            state.close = nil
            return state.endWaiters.takeAll()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Attaches what the work runs, so that ``cancel()`` closes it with `close`.
    ///
    /// - Returns: `false` when the work was cancelled already: the attachment is not to be run.
    package func attach(_ attachment: Attachment, closing close: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.attachment = attachment
            state.close = close
            return true
        }
    }

    /// Runs `body` until it returns or the work is cancelled, whichever comes first.
    ///
    /// - Returns: What `body` returned, or `nil` when the work was cancelled first (and `body` has ended).
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

    /// Returns once ``cancel()`` was called, or when the waiting task is cancelled.
    func untilCancelled() async {
        await state.wait(on: \.cancellationWaiters) { $0.cancelled }
    }
}

extension Work: Hashable {
    /// A piece of work is itself: the token `SessionMachine` holds for the live connection.
    package static func == (lhs: Work, rhs: Work) -> Bool { lhs === rhs }

    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
