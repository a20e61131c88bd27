package import ArgumentParser
import Foundation
import Lifeline
import LifelineCLIOutput
import LifelineCore
import LifelineStoat
import Synchronization

/// `storm`: N connected sessions, each with a session token of its own; the server drops every socket at once, and
/// the reconnections are counted in 100 ms bins when each client's socket opens (its upgrade answered), not when the
/// server's queue reaches them. The peak bin against the retry formula's prediction (goal: ratio
/// ≤ 1.2, the jitter really spreads the storm), every session CONNECTED again within the formula's bound plus
/// the connect time, with no second failure, and never two sockets for one session on the server.
///
/// The sessions run in a child process (`lifeline bench-storm`), the server in another (`lifeline serve`), so that
/// the CPU and memory reported are the sessions' alone.
enum StormBenchmark {
    /// The figures `bench-storm` reports.
    struct Figures: Codable {
        var sessions: Int
        /// Arrivals per 100 ms bin from the drop: sockets opened, as the clients saw them.
        var bins: [Int]
        /// The same arrivals as the server counted them (its accept queue's view), for comparison.
        var serverBins: [Int]
        /// Every DISCONNECTED seen after the drop: seconds after the drop, failure count.
        var waits: [[Double]]
        /// Sessions that noticed the drop, and the latest noticed, in seconds after it.
        var detectedMax: Double
        /// Connect times after the drop (RECONNECTING to CONNECTED), in seconds.
        var connectP50: Double
        var connectMax: Double
        /// The drawn first delays, in units.
        var delayMin: Double
        var delayMax: Double
        /// The last CONNECTED after the drop, in seconds.
        var allBack: Double
        /// Sessions CONNECTED again at the end.
        var reconnected: Int
        /// Attempts that failed after the drop (RECONNECTING to DISCONNECTED).
        var secondFailures: Int
        /// The most sockets one token had open at once, and how often a token overlapped.
        var maximumOpenPerToken: Int
        var overlaps: Int
        /// CPU seconds and resident bytes of the sessions' process before the drop, at the peak bin, after.
        var cpuBefore: Double
        var cpuPeak: Double
        var cpuAfter: Double
        var rssBefore: Int
        var rssPeak: Int
        var rssAfter: Int
        /// The time the initial logins took, in seconds.
        var loginSeconds: Double
    }

    static let binWidth: Duration = .milliseconds(100)

    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let count = quick ? 1_000 : 10_000
        let server = try ReferenceServerProcess.start(rateLimits: true)
        defer { server.stop() }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        child.arguments = [
            "bench-storm", "--count", "\(count)", "--admin", server.admin, "--api", server.api.absoluteString,
            "--events", server.events,
        ]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw BenchmarkError("bench-storm failed") }
        return result(try JSONDecoder().decode(Figures.self, from: data))
    }

    /// The benchmark's result from the child's figures: the prediction, the bound and the goal.
    static func result(_ figures: Figures) -> BenchmarkResult {
        let policy = RetryPolicy.spec
        let prediction = StormPrediction(
            waits: figures.waits.map {
                .init(disconnected: .milliseconds(Int64($0[0] * 1000)), failures: Int($0[1]))
            }, policy: policy, bin: binWidth)
        let peak = Double(figures.bins.max() ?? 0)
        let predictedAllBack = StormPrediction.allBack(
            detected: .milliseconds(Int64(figures.detectedMax * 1000)), policy: policy,
            connect: .milliseconds(Int64(figures.connectMax * 1000)))
        let allBackMet =
            figures.reconnected == figures.sessions && figures.secondFailures == 0
            && figures.allBack <= predictedAllBack.secondsValue
        let socketsMet = figures.maximumOpenPerToken <= 1 && figures.overlaps == 0
        func mb(_ bytes: Int) -> Double { (Double(bytes) / 1_048_576 * 10).rounded() / 10 }
        func r(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        let extra: [String: JSONLine.Value] = [
            "sessions": .integer(figures.sessions), "peak_per_100ms": .integer(Int(peak)),
            "predicted_peak_per_100ms": .number((prediction.peak * 10).rounded() / 10),
            "all_back_s": .number(r(figures.allBack)),
            "predicted_all_back_s": .number(r(predictedAllBack.secondsValue)),
            "reconnected": .integer(figures.reconnected), "second_failures": .integer(figures.secondFailures),
            "detected_max_s": .number(r(figures.detectedMax)), "connect_p50_s": .number(r(figures.connectP50)),
            "connect_max_s": .number(r(figures.connectMax)), "delay_min_units": .number(r(figures.delayMin)),
            "delay_max_units": .number(r(figures.delayMax)),
            "max_sockets_per_session": .integer(figures.maximumOpenPerToken),
            "cpu_s": .array([.number(r(figures.cpuBefore)), .number(r(figures.cpuPeak)), .number(r(figures.cpuAfter))]),
            "rss_mb": .array([
                .number(mb(figures.rssBefore)), .number(mb(figures.rssPeak)), .number(mb(figures.rssAfter)),
            ]),
            "bins": .array(figures.bins.map { .integer($0) }),
            "server_bins": .array(figures.serverBins.map { .integer($0) }),
            "server_peak_per_100ms": .integer(figures.serverBins.max() ?? 0),
        ]
        var result = BenchmarkResult(
            name: "storm", unit: "arrivals/100 ms", lifeline: peak, baseline: prediction.peak,
            goal: .ratioAtMost(1.2),
            detail: String(
                format: "%d sessions; all back in %.2f s (bound %.2f s), %d second failures, ≤ %d socket per session; "
                    + "CPU %.1f/%.1f/%.1f s, RSS %.0f/%.0f/%.0f MB (before/peak/after)",
                figures.sessions, figures.allBack, predictedAllBack.secondsValue, figures.secondFailures,
                figures.maximumOpenPerToken, figures.cpuBefore, figures.cpuPeak, figures.cpuAfter,
                mb(figures.rssBefore),
                mb(figures.rssPeak), mb(figures.rssAfter)))
        result.extra = extra
        result.alsoMet = allBackMet && socketsMet
        return result
    }
}

/// `lifeline bench-storm` (hidden): the sessions' side of `storm`, in a process of its own.
package struct BenchStorm: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "bench-storm", abstract: "The sessions' side of the storm benchmark.", shouldDisplay: false)

    @Option var count: Int
    @Option var admin: String
    @Option var api: String
    @Option var events: String

    /// What the watcher saw of one session after the drop.
    private struct Seen {
        var waits: [(time: Duration, failures: Int, delay: Duration)] = []
        var lastSnapshot: Duration = .zero
        var back: Duration?
    }

    package init() {}

    package func run() async throws {
        raiseDescriptorLimit()
        guard let apiURL = URL(string: api) else { throw ValidationError("--api is not a URL") }
        let client = AdminClient(admin: admin, api: apiURL)
        let population = try await client.admin("load/population", ["users": count]) as? [String: Any]
        let tokens = (population?["users"] as? [[String: Any]] ?? []).compactMap { $0["token"] as? String }
        guard tokens.count == count else { throw BenchmarkError("the server made \(tokens.count) of \(count) users") }

        let metrics = CountingMetrics()
        let eventsURL = events
        let opened = OpenedSockets()
        let factory = OpenCountingFactory(base: StoatConnectionFactory(eventsURL: { eventsURL }), opened: opened)
        let authenticator = StoatAuthenticator(api: StoatAPI(baseURL: apiURL))
        var sessions: [(session: Session, created: ContinuousClock.Instant)] = []
        var keepAlive: [Task<Void, Never>] = []
        for _ in 0..<count {
            let created = ContinuousClock.now
            let session = Session(
                connections: factory, authenticator: authenticator, network: ManualNetworkMonitor(.online),
                metrics: metrics)
            sessions.append((session, created))
            keepAlive.append(Task { await session.run() })
        }
        let loginStart = ContinuousClock.now
        for batch in stride(from: 0, to: count, by: 200) {
            let slice = sessions[batch..<min(count, batch + 200)]
            for (index, entry) in zip(slice.indices, slice) {
                await entry.session.logIn(.init(token: tokens[index]), cached: true)
            }
            while slice.contains(where: { $0.session.snapshot.state != .connected }) {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        let loginSeconds = loginStart.duration(to: .now).secondsValue
        try await Task.sleep(for: .seconds(1))

        let samples = Mutex<[(time: ContinuousClock.Instant, cpu: Double, rss: Int)]>([])
        let before = (cpu: cpuSeconds(), rss: residentBytes())
        let reportBefore = try await client.admin("load/report", ["closed_after": 0]) as? [String: Any]
        let closedBefore = reportBefore?["closed_count"] as? Int ?? 0
        let failuresBefore = metrics.total(
            "lifeline_session_transitions_total", matching: ["from": "RECONNECTING", "event": "TEMPORARY_FAILURE"])
        let connectTimes = metrics.timer("lifeline_session_time_to_connected")
        connectTimes.removeAll()

        let sent = ContinuousClock.now
        _ = try await client.admin("load/storm")
        let answered = ContinuousClock.now
        let drop = sent + sent.duration(to: answered) / 2

        // Watch every session until all are CONNECTED again: the snapshot of each state carries the exact time
        // of its transition, so a look every 100 ms misses nothing but states shorter than that.
        var seen = [Seen](repeating: Seen(), count: count)
        let deadline = drop + .seconds(120)
        while ContinuousClock.now < deadline {
            samples.withLock { $0.append((.now, cpuSeconds(), residentBytes())) }
            var waiting = 0
            for index in 0..<count {
                let (session, created) = sessions[index]
                let snapshot = session.snapshot
                let time = drop.duration(to: created + snapshot.time)
                guard time > .zero, time != seen[index].lastSnapshot else {
                    if seen[index].back == nil { waiting += 1 }
                    continue
                }
                seen[index].lastSnapshot = time
                switch snapshot.state {
                case .disconnected:
                    if seen[index].waits.last?.time != time {
                        seen[index].waits.append(
                            (time, snapshot.failures, snapshot.presentation.retryDelay ?? .zero))
                    }
                    seen[index].back = nil
                case .connected:
                    seen[index].back = time
                default:
                    seen[index].back = nil
                }
                if seen[index].back == nil { waiting += 1 }
            }
            if waiting == 0 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .seconds(1))
        let after = (cpu: cpuSeconds(), rss: residentBytes())

        let arrivals = try await client.adminGet("arrivals") as? [String: Any]
        let serverBins = arrivals?["bins"] as? [Int] ?? []
        let bins = opened.bins(after: drop, width: StormBenchmark.binWidth)
        let report = try await client.admin("load/report", ["closed_after": closedBefore]) as? [String: Any]
        let peakBin = bins.indices.max { bins[$0] < bins[$1] } ?? 0
        let peakTime = drop + StormBenchmark.binWidth * (peakBin + 1)
        let peak =
            samples.withLock { samples in
                samples.min {
                    abs(peakTime.duration(to: $0.time).secondsValue) < abs(peakTime.duration(to: $1.time).secondsValue)
                }
            }
        let connects = connectTimes.all.sorted()
        let unit = RetryPolicy.spec.unit.secondsValue
        let firstDelays = seen.compactMap { $0.waits.first.map { $0.delay.secondsValue / unit } }
        let figures = StormBenchmark.Figures(
            sessions: count, bins: bins, serverBins: serverBins,
            waits: seen.flatMap { $0.waits.map { [$0.time.secondsValue, Double($0.failures)] } },
            detectedMax: seen.compactMap { $0.waits.first?.time.secondsValue }.max() ?? 0,
            connectP50: connects.isEmpty ? 0 : Double(connects[connects.count / 2]) / 1e9,
            connectMax: Double(connects.last ?? 0) / 1e9,
            delayMin: firstDelays.min() ?? 0, delayMax: firstDelays.max() ?? 0,
            allBack: seen.compactMap { $0.back?.secondsValue }.max() ?? 0,
            reconnected: seen.count { $0.back != nil },
            secondFailures: Int(
                metrics.total(
                    "lifeline_session_transitions_total",
                    matching: ["from": "RECONNECTING", "event": "TEMPORARY_FAILURE"])
                    - failuresBefore),
            maximumOpenPerToken: report?["maximum_open_per_token"] as? Int ?? 0,
            overlaps: report?["overlap_count"] as? Int ?? 0,
            cpuBefore: before.cpu, cpuPeak: peak?.cpu ?? 0, cpuAfter: after.cpu, rssBefore: before.rss,
            rssPeak: peak?.rss ?? 0, rssAfter: after.rss, loginSeconds: loginSeconds)
        emit(String(decoding: try JSONEncoder().encode(figures), as: UTF8.self))
        for task in keepAlive { task.cancel() }
        Foundation.exit(0)  // tearing down 10 000 sockets politely would only measure the teardown
    }
}

/// When the sessions' sockets opened (SOCKET_OPENED reported by the connection), on the continuous clock.
final class OpenedSockets: Sendable {
    private let times = Mutex<[ContinuousClock.Instant]>([])

    func record() { times.withLock { $0.append(.now) } }

    /// Openings per bin of `width` from `start` (none before it), up to the last opening.
    func bins(after start: ContinuousClock.Instant, width: Duration) -> [Int] {
        let offsets = times.withLock { $0 }.map { start.duration(to: $0) }.filter { $0 >= .zero }
        guard let last = offsets.max() else { return [] }
        var bins = [Int](repeating: 0, count: Int(last / width) + 1)
        for offset in offsets { bins[Int(offset / width)] += 1 }
        return bins
    }
}

/// A connection factory that notes when each of its connections' sockets opens.
struct OpenCountingFactory<Base: ConnectionFactory>: ConnectionFactory {
    let base: Base
    let opened: OpenedSockets

    func makeConnection(for credentials: SessionCredentials, generation: UInt64) -> any SessionConnection {
        Counted(base: base.makeConnection(for: credentials, generation: generation), opened: opened)
    }

    private struct Counted: SessionConnection {
        let base: any SessionConnection
        let opened: OpenedSockets

        func run(reporting report: @escaping @Sendable (ConnectionEvent) async -> Void) async {
            await base.run { event in
                if event == .opened { opened.record() }
                await report(event)
            }
        }

        func close() { base.close() }

        func startPlay(_ event: SignificantEvent) -> PlayStart { base.startPlay(event) }

        func startSocketCheck() -> PlayStart { base.startSocketCheck() }
    }
}
