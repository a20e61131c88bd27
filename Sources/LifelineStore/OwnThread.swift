internal import Foundation

/// Runs `work`, which holds its thread for a long time (a key derivation of tens of milliseconds to seconds, the
/// synchronous creation of a database file), on a thread of its own and suspends until it ends.
///
/// Swift's cooperative pool has one thread per core (two on a small server, a phone's few): a sign-in that derived
/// its key there would stall every other task of the process (the sessions' sockets, the interface's models) for
/// as long as the derivation runs. A thread per call costs tens of microseconds, nothing beside a derivation, and
/// unlike Dispatch's global queues it is never held back waiting for a busy pool to notice a blocked worker.
func onOwnThread<Value: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
        let thread = Thread { continuation.resume(returning: Result { () throws(Failure) -> Value in try work() }) }
        thread.name = "lifeline.store.blocking"
        thread.start()
    }
    return try result.get()
}
