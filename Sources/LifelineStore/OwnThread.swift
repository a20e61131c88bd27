internal import Foundation

/// Runs `work`, which holds its thread for a long time (a key derivation of tens of milliseconds to seconds, the
/// synchronous creation of a database file), on a thread of its own and suspends until it ends.
///
/// Swift's cooperative pool has one thread per core (two on a small server, a phone's few): a sign-in that derived
/// its key there would stall every other task of the process (the sessions' sockets, the interface's models) for
/// as long as the derivation runs. A thread per call costs tens of microseconds, nothing beside a derivation, and
/// unlike Dispatch's global queues it is never held back waiting for a busy pool to notice a blocked worker. At
/// most one such thread per core runs at once (``BlockingWorkGate/shared``): a bot host signing in a thousand
/// accounts derives their keys a core's worth at a time, not on a thousand threads that would starve its sockets.
func onOwnThread<Value: Sendable, Failure: Error>(
    gate: BlockingWorkGate = .shared,
    _ work: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    await gate.enter()
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
        let thread = Thread { continuation.resume(returning: Result { () throws(Failure) -> Value in try work() }) }
        thread.name = "lifeline.store.blocking"
        thread.start()
    }
    await gate.leave()
    return try result.get()
}

/// Lets at most `limit` pieces of blocking work run at once; the others wait, first come first served.
actor BlockingWorkGate {
    /// One per core of this machine, shared by every store of the process.
    static let shared = BlockingWorkGate(limit: ProcessInfo.processInfo.activeProcessorCount)

    /// The most that run at once (at least 1).
    let limit: Int
    /// How many run now.
    private(set) var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// How many wait for a turn.
    var waitingCount: Int { waiting.count }

    /// Returns once this caller may run; call ``leave()`` when done.
    func enter() async {
        guard running >= limit else {
            running += 1
            return
        }
        // The leaver hands its turn over: `running` stays counted.
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Ends a turn, handing it to the longest waiter.
    func leave() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
