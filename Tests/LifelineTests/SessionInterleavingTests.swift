import Lifeline
import LifelineCore
import LifelineTesting
import Testing

@Suite("Random interleavings of the runtime", .hangBound)
struct SessionInterleavingTests {
    /// One random thing that can happen to a session: the user, the network, a connection, or time.
    static func step(_ harness: Harness, _ random: inout SeededRandomNumberGenerator) async {
        let started = harness.connections.started
        switch Int.random(in: 0..<12, using: &random) {
        case 0: await harness.session.logIn(credentials, cached: Bool.random(using: &random))
        case 1: await harness.session.logOut()
        case 2: await harness.session.reconnectNow()
        case 3: await harness.session.dismissError()
        case 4: harness.network.set(Bool.random(using: &random) ? .online : .offline)
        case 5:
            if let deadline = harness.clock.pendingDeadlines.first { harness.clock.advance(to: deadline) }
        case 6, 7:
            // The newest connection makes progress.
            guard let connection = started.last else { return }
            switch Int.random(in: 0..<5, using: &random) {
            case 0: await connection.open()
            case 1: await connection.ready()
            case 2: await connection.end(.temporary(.socketDropped))
            case 3: await connection.report(.ended(.temporary(.socketDropped)))  // reports, then closes slowly
            default: connection.vanish()
            }
        case 8, 9:
            // Any connection, most likely an old one, reports late.
            guard let connection = started.randomElement(using: &random) else { return }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: await connection.ready()
            case 1: await connection.end(.permanent(.invalidSession))
            case 2: await connection.end(.loggedOut)
            default: await connection.end(.temporary(.init(code: .heartbeatTimeout, message: "heartbeatTimeout")))
            }
        case 10:
            // A cancelled connection finishes closing.
            started.filter(\.wasCancelled).randomElement(using: &random)?.finishClosing()
        default: await Task.yield()
        }
    }

    @Test("a thousand random interleavings of opens, closes, timers and user actions never have two live connections")
    func neverTwoConnections() async throws {
        for seed in UInt64(1)...1_000 {
            var random = SeededRandomNumberGenerator(seed: seed)
            let harness = Harness(seed: seed, healthThreshold: Int.random(in: 1...4, using: &random))
            harness.connections.closesSlowly = true
            harness.authenticator.answerOnboarding(.success(seed % 5 == 0))
            for _ in 0..<40 {
                await Self.step(harness, &random)
                #expect(harness.connections.mostRunning <= 1, "seed \(seed)")
                let snapshot = harness.session.snapshot
                if snapshot.state == .connected { #expect(snapshot.failures == 0, "seed \(seed)") }
            }
            harness.connections.finishClosingAll()
            await harness.stop()
            #expect(harness.connections.mostRunning <= 1, "seed \(seed)")
            #expect(harness.connections.running == 0, "seed \(seed): a connection outlived run()")
            #expect(harness.session.runningTasks == 0, "seed \(seed): a task outlived run()")
            #expect(harness.clock.pendingSleeps == 0, "seed \(seed): a timer outlived run()")
        }
    }
}
