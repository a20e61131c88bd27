import Synchronization

/// The session's work that has not ended yet, readable from any task: what ``Session/runningTasks`` and
/// ``Session/runningClientTasks`` count, and what DISPOSE stops and waits for.
final class WorkRegistry: Sendable {
    private let works = Mutex<[UInt64: Work]>([:])

    func insert(_ work: Work, id: UInt64) { works.withLock { $0[id] = work } }
    func remove(_ id: UInt64) { works.withLock { _ = $0.removeValue(forKey: id) } }
    func removeAll() { works.withLock { $0 = [:] } }
    func clientWork() -> [Work] { works.withLock { $0.values.filter(\.isClientWork) } }

    func count(clientOnly: Bool) -> Int {
        works.withLock { works in clientOnly ? works.values.count { $0.isClientWork } : works.count }
    }
}
