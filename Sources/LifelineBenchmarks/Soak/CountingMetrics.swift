import Metrics
import Synchronization

/// A metrics backend that adds counters up and keeps timers' values, in memory, by label and dimensions: what
/// the storm and the soak read of the sessions' `lifeline_session_*` metrics (transitions, stale events dropped,
/// failures, time to connected).
final class CountingMetrics: MetricsFactory {
    /// One timer's values, in nanoseconds, in the order recorded.
    final class Values: TimerHandler {
        private let values = Mutex<[Int64]>([])

        var all: [Int64] { values.withLock { $0 } }
        func recordNanoseconds(_ duration: Int64) { values.withLock { $0.append(duration) } }
        func removeAll() { values.withLock { $0.removeAll() } }
    }

    /// One counter.
    final class Count: CounterHandler {
        private let value = Atomic<Int64>(0)

        var current: Int64 { value.load(ordering: .relaxed) }
        func increment(by amount: Int64) { value.add(amount, ordering: .relaxed) }
        func reset() { value.store(0, ordering: .relaxed) }
    }

    private let counters = Mutex<[String: Count]>([:])
    private let timers = Mutex<[String: Values]>([:])

    /// The values of the timer with this label (no dimensions).
    func timer(_ label: String) -> Values {
        timers.withLock { timers in
            if let existing = timers[label] { return existing }
            let made = Values()
            timers[label] = made
            return made
        }
    }

    /// The sum of the counters with this label whose dimensions include every pair of `matching`.
    func total(_ label: String, matching: [String: String] = [:]) -> Int64 {
        let wanted = matching.map { "\($0.key)=\($0.value)" }
        return counters.withLock { counters in
            counters.filter { key, _ in
                let parts = key.split(separator: "|").map(String.init)
                return parts.first == label && wanted.allSatisfy(parts.dropFirst().contains)
            }
            .values.reduce(0) { $0 + $1.current }
        }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        let key = ([label] + dimensions.map { "\($0.0)=\($0.1)" }).joined(separator: "|")
        return counters.withLock { counters in
            if let existing = counters[key] { return existing }
            let made = Count()
            counters[key] = made
            return made
        }
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        dimensions.isEmpty ? timer(label) : NOOPMetricsHandler.instance
    }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}
