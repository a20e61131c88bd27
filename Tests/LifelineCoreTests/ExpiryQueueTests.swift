import LifelineCore
import LifelineTesting
import Testing

/// An element of the queue in tests: an id and a label that changes when it is replaced.
struct Ticket: Identifiable, Hashable, Sendable {
    var id: Int
    var label = ""
}

@Suite("The expiry queue")
struct ExpiryQueueTests {
    @Test("pops what is due, earliest first, whatever order it was added in; leaves the rest")
    func popsInOrder() {
        var queue = ExpiryQueue<Ticket>()
        for (id, deadline) in [(1, 50), (2, 10), (3, 40), (4, 20), (5, 30)] {
            queue.insert(Ticket(id: id), expiresAt: .seconds(deadline))
        }
        #expect(queue.earliestDeadline == .seconds(10))
        #expect(queue.popDue(at: .seconds(9) + .nanoseconds(999_999_999)).isEmpty)
        #expect(queue.popDue(at: .seconds(30)).map(\.id) == [2, 4, 5])
        #expect(queue.earliest?.element.id == 3)
        #expect(queue.count == 2)
        #expect(queue.popDue(at: .seconds(1_000)).map(\.id) == [3, 1])
        #expect(queue.isEmpty && queue.earliestDeadline == nil)
    }

    @Test("equal deadlines leave in the order they were added")
    func tiesFirstInFirstOut() {
        var queue = ExpiryQueue<Ticket>()
        for id in [7, 3, 9, 1, 5] { queue.insert(Ticket(id: id), expiresAt: .seconds(10)) }
        #expect(queue.popDue(at: .seconds(10)).map(\.id) == [7, 3, 9, 1, 5])
    }

    @Test("inserting an id again replaces the element and moves it, earlier or later")
    func insertReplaces() {
        var queue = ExpiryQueue<Ticket>()
        queue.insert(Ticket(id: 1, label: "a"), expiresAt: .seconds(10))
        queue.insert(Ticket(id: 2), expiresAt: .seconds(20))
        #expect(queue.insert(Ticket(id: 1, label: "b"), expiresAt: .seconds(30)) == .seconds(10))
        #expect(queue.count == 2)
        #expect(queue.earliest?.element.id == 2)
        #expect(queue.insert(Ticket(id: 1, label: "c"), expiresAt: .seconds(5)) == .seconds(30))
        #expect(queue.earliest?.element == Ticket(id: 1, label: "c"))
    }

    @Test("removing the earliest makes the next one the earliest; removing an absent id changes nothing")
    func removeEarliest() {
        var queue = ExpiryQueue<Ticket>([
            (Ticket(id: 1), .seconds(10)), (Ticket(id: 2), .seconds(20)), (Ticket(id: 3), .seconds(30)),
        ])
        #expect(queue.remove(1)?.deadline == .seconds(10))
        #expect(queue.earliestDeadline == .seconds(20))
        #expect(queue.remove(1) == nil)
        #expect(queue.count == 2 && !queue.contains(1) && queue.deadline(of: 3) == .seconds(30))
    }

    @Test("replacing everything keeps only the new elements, and the last entry of a repeated id")
    func replaceAll() {
        var queue = ExpiryQueue<Ticket>()
        queue.insert(Ticket(id: 9), expiresAt: .seconds(1))
        queue.replaceAll(with: [
            (Ticket(id: 1), .seconds(30)), (Ticket(id: 2), .seconds(20)), (Ticket(id: 1, label: "last"), .seconds(40)),
        ])
        #expect(queue.count == 2 && !queue.contains(9))
        #expect(queue.deadline(of: 1) == .seconds(40))
        #expect(queue.popDue(at: .seconds(100)) == [Ticket(id: 2), Ticket(id: 1, label: "last")])
    }

    @Test("10 000 random inserts, moves, removals and pops agree with a sorted list", arguments: [1, 2, 3] as [UInt64])
    func agreesWithAModel(seed: UInt64) async {
        var random = SeededRandomNumberGenerator(seed: seed)
        var queue = ExpiryQueue<Ticket>()
        // The model: id → (deadline, sequence), sorted on demand.
        var model: [Int: (deadline: Int, sequence: Int)] = [:]
        var sequence = 0
        var now = 0
        for step in 0..<10_000 {
            // Yields now and then: a CPU-bound loop holds one of the cooperative pool's threads (two on a 2-core machine), and
            // the in-process servers of every other test wait for them (HowLifelineIsBuilt.md: "The tests").
            if step % 500 == 0 { await Task.yield() }
            let id = Int.random(in: 0..<500, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let deadline = now + Int.random(in: 0..<1_000, using: &random)
                queue.insert(Ticket(id: id), expiresAt: .seconds(deadline))
                model[id] = (deadline, sequence)
                sequence += 1
            case 5..<7:
                #expect(
                    queue.remove(id)?.deadline == model.removeValue(forKey: id).map { .seconds($0.deadline) },
                    "step \(step)")
            case 7:
                let all = (0..<Int.random(in: 0..<50, using: &random)).map { _ in
                    (Int.random(in: 0..<500, using: &random), now + Int.random(in: 0..<1_000, using: &random))
                }
                queue.replaceAll(with: all.map { (Ticket(id: $0.0), .seconds($0.1)) })
                model = [:]
                for (id, deadline) in all {
                    model[id] = (deadline, sequence)
                    sequence += 1
                }
            default:
                now += Int.random(in: 0..<200, using: &random)
                let due = model.filter { $0.value.deadline <= now }
                    .sorted { ($0.value.deadline, $0.value.sequence) < ($1.value.deadline, $1.value.sequence) }
                for (id, _) in due { model[id] = nil }
                #expect(queue.popDue(at: .seconds(now)).map(\.id) == due.map(\.key), "step \(step)")
            }
            #expect(queue.count == model.count, "step \(step)")
            #expect(queue.earliestDeadline == model.values.map(\.deadline).min().map { .seconds($0) }, "step \(step)")
        }
    }
}
