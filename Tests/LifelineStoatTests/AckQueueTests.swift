import Testing

@testable import LifelineStoat

/// The acknowledgement queue's decisions, as stories: one line per fact, then what it decided.
@Suite("The acknowledgement queue's decisions")
struct AckQueueTests {
    static let before = ReadState(lastRead: "01A", mentions: ["01B"])

    @Test("asks coalesce: the newest id goes 1.5 s after the last ask, 4 s after the first at the latest")
    func coalesce() {
        var queue = AckQueue()
        #expect(
            queue.asked(channel: "C", message: "01B", before: Self.before, now: .zero)
                == [.wake(channel: "C", at: .milliseconds(1500))])
        #expect(
            queue.asked(channel: "C", message: "01C", before: Self.before, now: .seconds(1))
                == [.wake(channel: "C", at: .milliseconds(2500))])
        #expect(
            queue.asked(channel: "C", message: "01D", before: Self.before, now: .seconds(3))
                == [.wake(channel: "C", at: .seconds(4))], "capped 4 s after the first ask")
        #expect(queue.woke(channel: "C", now: .milliseconds(3999)) == [.wake(channel: "C", at: .seconds(4))])
        #expect(queue.woke(channel: "C", now: .seconds(4)) == [.send(channel: "C", message: "01D")])
    }

    @Test("never an id at or below one in flight or accepted; one request in flight, the next after its answer")
    func neverBackwards() {
        var queue = AckQueue()
        _ = queue.asked(channel: "C", message: "01C", before: Self.before, now: .zero)
        _ = queue.woke(channel: "C", now: .milliseconds(1500))
        #expect(queue.asked(channel: "C", message: "01B", before: Self.before, now: .seconds(2)).isEmpty)
        #expect(queue.asked(channel: "C", message: "01C", before: Self.before, now: .seconds(2)).isEmpty)
        #expect(queue.asked(channel: "C", message: "01D", before: Self.before, now: .seconds(2)).isEmpty, "in flight")
        #expect(queue.woke(channel: "C", now: .seconds(10)).isEmpty, "still in flight")
        #expect(
            queue.answered(channel: "C", message: "01C", .accepted, now: .seconds(10))
                == [.send(channel: "C", message: "01D")], "due long ago: at once")
        _ = queue.answered(channel: "C", message: "01D", .accepted, now: .seconds(11))
        #expect(queue.asked(channel: "C", message: "01D", before: Self.before, now: .seconds(12)).isEmpty)
        #expect(queue.lanes["C"]?.accepted == "01D")
    }

    @Test("a refusal restores the read state before the first unaccepted ack, unless a newer ack is pending")
    func refusal() {
        var queue = AckQueue()
        _ = queue.asked(channel: "C", message: "01C", before: Self.before, now: .zero)
        _ = queue.woke(channel: "C", now: .milliseconds(1500))
        #expect(
            queue.answered(channel: "C", message: "01C", .refused, now: .seconds(2))
                == [.undo(channel: "C", upTo: "01C", restore: Self.before)])
        // A newer ack asked while one is in flight: the first refusal waits for its fate.
        _ = queue.asked(channel: "C", message: "01D", before: ReadState(lastRead: "01A"), now: .seconds(3))
        _ = queue.woke(channel: "C", now: .milliseconds(4500))
        _ = queue.asked(channel: "C", message: "01E", before: ReadState(lastRead: "01D"), now: .seconds(5))
        #expect(
            queue.answered(channel: "C", message: "01D", .refused, now: .seconds(6))
                == [.wake(channel: "C", at: .milliseconds(6500))])
        #expect(queue.woke(channel: "C", now: .milliseconds(6500)) == [.send(channel: "C", message: "01E")])
        #expect(
            queue.answered(channel: "C", message: "01E", .refused, now: .seconds(7))
                == [.undo(channel: "C", upTo: "01E", restore: ReadState(lastRead: "01A"))])
    }

    @Test("a failure without an answer sends the newest id again later, 1.5 s doubling to 30 s")
    func retry() {
        var queue = AckQueue()
        _ = queue.asked(channel: "C", message: "01C", before: Self.before, now: .zero)
        _ = queue.woke(channel: "C", now: .milliseconds(1500))
        #expect(
            queue.answered(channel: "C", message: "01C", .retry, now: .seconds(2))
                == [.wake(channel: "C", at: .milliseconds(3500))])
        #expect(queue.woke(channel: "C", now: .milliseconds(3500)) == [.send(channel: "C", message: "01C")])
        #expect(
            queue.answered(channel: "C", message: "01C", .retry, now: .seconds(4))
                == [.wake(channel: "C", at: .seconds(7))])
    }
}
