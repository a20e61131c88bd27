import LifelineCore

/// `machine`: pure state-machine transitions per second (goal ≥ 10 million/s; no baseline).
///
/// Cycles a session through a loop that takes every kind of logged-in edge — cached login, connect,
/// drop, retry, reconnect, offline, online, logout, dispose — so every entry and exit effect runs.
enum MachineBenchmark {
    static let loop: [SessionEvent] = [
        .loginCached(SessionCredentials(token: "bench", userID: "user")),
        .socketConnected,
        .temporaryFailure(.socketDropped),
        .retry,
        .temporaryFailure(.init(code: .connectFailed, message: "refused")),
        .reconnectNow,
        .socketConnected,
        .temporaryFailure(.socketDropped),
        .deviceOffline,
        .deviceOnline,
        .socketConnected,
        .logout(external: false),
        .ready,
    ]

    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let rounds = quick ? 3 : 7
        let loops = quick ? 100_000 : 400_000
        var best = 0.0
        for _ in 0..<rounds {
            best = max(best, measure(loops: loops))
        }
        return BenchmarkResult(
            name: "machine", unit: "transitions/s", lifeline: best, baseline: nil, goal: .atLeast(10_000_000),
            detail: "best of \(rounds) × \(loops * loop.count) events")
    }

    /// Transitions per second over `loops` passes of the loop.
    static func measure(loops: Int) -> Double {
        var machine = SessionMachine<UInt64, UInt64>()
        var random = BenchmarkRandomNumberGenerator(seed: 7)
        var transitions = 0
        var actions: [SessionAction<UInt64, UInt64>] = []
        actions.reserveCapacity(8)
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<loops {
            for event in loop {
                actions.removeAll(keepingCapacity: true)
                if let steps = machine.handle(event, using: &random, appendingTo: &actions) {
                    transitions &+= steps.isChained ? 2 : 1
                }
            }
        }
        let elapsed = start.duration(to: clock.now)
        precondition(machine.state == .ready && machine.rejectedEvents == 0, "the benchmark loop left the table")
        return Double(transitions) / elapsed.secondsValue
    }
}
