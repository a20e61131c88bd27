import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import StoatReferenceServer

/// A `StoatClient` and a reference server that share one test clock: the server's clock is a fixed date
/// (0.4 s past a second, so its `Date` header truncates) plus the test clock's time plus the skew fault;
/// the client's timers, REST waits and deadlines run on the test clock. The heartbeat is a day apart, so
/// that moving the clock by minutes only moves what a test is about. The client signs in as a plain member
/// of the lobby: its owner is above timeouts and slowmodes, as in stoatchat.
final class SharedClockHarness: Sendable {
    /// The server's clock at the test clock's zero.
    static let start = Date(timeIntervalSince1970: 1_750_000_000.4)

    let clock = TestClock()
    let server: ReferenceServer
    let client: StoatClient
    /// Whether the client catches up after each CONNECTED.
    let catchesUp: Bool
    let recorder: SnapshotRecorder
    /// The account the client signs in with: a member of the lobby, not its owner.
    let account: SeededAccount
    private let runner: Task<Void, Never>

    init(
        configure: (inout ReferenceServer.Configuration) -> Void = { _ in },
        client configureClient: (inout StoatClient.Configuration) -> Void = { _ in }
    ) async throws {
        let clock = clock
        var configuration = ReferenceServer.Configuration(now: {
            let (seconds, attoseconds) = clock.now.offset.components
            return Self.start.addingTimeInterval(Double(seconds) + Double(attoseconds) * 1e-18)
        })
        configure(&configuration)
        server = try await ReferenceServer.start(configuration)
        account = try await server.addUser(username: "member")
        try await server.join(userID: account.userID, serverID: server.lobbyServerID)
        var clientConfiguration = StoatClient.Configuration()
        clientConfiguration.connection.heartbeatInterval = .seconds(86_400)
        clientConfiguration.requestTimeout = .failureBound  // a REST call's exchange runs on the wall clock
        configureClient(&clientConfiguration)
        catchesUp = clientConfiguration.catchUp.isEnabled
        client = StoatClient(
            apiURL: server.apiURL, configuration: clientConfiguration, network: ManualNetworkMonitor(.online),
            clock: clock,
            random: SeededRandomNumberGenerator(seed: 11))
        recorder = SnapshotRecorder(client.session.states)
        let client = client
        runner = Task { await client.run() }
    }

    /// Logs in and waits for CONNECTED and, when the client catches up, for that catch-up to end: its REST
    /// calls are then done, and a fault the test applies next meets only what the test makes happen.
    func connect() async {
        let reports = client.catchUps
        await client.resume(SessionCredentials(token: account.token, userID: account.userID))
        await recorder.next(.connected)
        if catchesUp {
            for await _ in reports { break }
        }
    }

    /// Moves the test clock (and so the server's clock) to `seconds`.
    func advance(to seconds: Double) {
        clock.advance(to: TestClock.Instant(offset: .milliseconds(Int64((seconds * 1000).rounded()))))
    }

    func stop() async {
        runner.cancel()
        await runner.value
        await server.stop()
    }
}

/// Whether two durations are within a millisecond: deadlines computed from ISO 8601 dates carry the
/// binary rounding of their fractions.
func close(_ duration: Duration?, _ expected: Duration) -> Bool {
    guard let duration else { return false }
    return abs((duration - expected) / .microseconds(1)) < 1_000
}

func close(_ date: Date?, _ expected: Date) -> Bool {
    guard let date else { return false }
    return abs(date.timeIntervalSince(expected)) < 0.001
}
