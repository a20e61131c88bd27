import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import StoatReferenceServer
import Synchronization
import Testing

/// Stoat's operations source, recording the list clock's time at every fetch.
final class RecordingOperationSource: OperationSource {
    let stoat: StoatOperationSource
    let clock: TestClock
    private let starts = Mutex<[TestClock.Instant]>([])

    init(_ stoat: StoatOperationSource, clock: TestClock) {
        self.stoat = stoat
        self.clock = clock
    }

    /// When each fetch started, on the list's clock.
    var fetchTimes: [TestClock.Instant] { starts.withLock { $0 } }

    func fetchOperations() async throws -> OperationListing<OperationsPage.Operation> {
        starts.withLock { $0.append(clock.now) }
        return try await stoat.fetchOperations()
    }
}

/// A reference server whose clock follows a test clock, and an operation list of its default account on
/// the same test clock.
final class StoatListHarness: Sendable {
    /// The server's clock at the test clock's zero: 0.4 s past a second, so its `Date` header is truncated.
    static let start = Date(timeIntervalSince1970: 1_750_000_000.4)

    let clock = TestClock()
    let server: ReferenceServer
    let source: RecordingOperationSource
    let list: OperationList<OperationsPage.Operation>
    private let runner = Mutex<Task<Void, Never>?>(nil)

    init() async throws {
        let clock = clock
        server = try await ReferenceServer.start(
            .init(now: {
                let (seconds, attoseconds) = clock.now.offset.components
                return Self.start.addingTimeInterval(Double(seconds) + Double(attoseconds) * 1e-18)
            }))
        let api = StoatAPI(baseURL: server.apiURL, requestTimeout: .failureBound)
        source = RecordingOperationSource(
            StoatOperationSource(api: api, credentials: SessionCredentials(token: server.defaultAccount.token)),
            clock: clock)
        list = OperationList(source: source, clock: clock)
    }

    /// Starts the list, which fetches at once. A test adds its operation first: nothing else makes the list fetch
    /// again while the clock stands still, so a list started earlier could have fetched before the operation
    /// existed (it did, when this test ran alone).
    func startList() {
        let list = list
        runner.withLock { $0 = Task { await list.run() } }
    }

    /// Waits for the next refresh and returns the ids it listed.
    func nextRefresh(
        _ events: inout AsyncStream<OperationListEvent<OperationsPage.Operation>>.Iterator
    ) async
        -> [String]?
    {
        while let event = await events.next() {
            if case .refreshed(let listed) = event { return listed.map(\.operation.id) }
        }
        return nil
    }

    /// The default account's session.
    var credentials: SessionCredentials {
        SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID)
    }

    /// Adds an operation of the default account that expires in 300 s, and waits for the list to show it.
    func watchedOperation(
        _ events: inout AsyncStream<OperationListEvent<OperationsPage.Operation>>.Iterator
    ) async -> StoatOperation {
        let operation = await server.addOperation(
            kind: "login_approval", userID: server.defaultAccount.userID, expiresIn: .seconds(300))
        startList()
        #expect(await nextRefresh(&events) == [operation.id])
        return operation
    }

    /// A client of this server, running, with its states recorded. Its clock is a test clock of its own that
    /// never moves: it reconnects only when told.
    func runningClient() -> (StoatClient, SnapshotRecorder, Task<Void, Never>) {
        let client = StoatClient(
            apiURL: server.apiURL, configuration: .patientREST(), network: ManualNetworkMonitor(.online),
            clock: TestClock())
        let recorder = SnapshotRecorder(client.session.states)
        return (client, recorder, Task { await client.run() })
    }

    func stop() async {
        let runner = runner.withLock { $0 }
        runner?.cancel()
        await runner?.value
        await server.stop()
    }
}

@Suite("The operation list against the reference server", .hangBound)
struct StoatOperationListTests {
    @Test(
        "an operation that expires triggers exactly one refresh, after its expiry on the server's clock, skewed or not",
        arguments: [-7_200, 0, 7_200] as [Int64])
    func expiryRefreshesOnce(skewSeconds: Int64) async throws {
        let harness = try await StoatListHarness()
        var events = harness.list.events.makeAsyncIterator()
        await harness.server.setClockSkew(.seconds(skewSeconds))
        let operation = await harness.server.addOperation(
            kind: "login_approval", userID: harness.server.defaultAccount.userID, expiresIn: .seconds(30))
        harness.startList()
        #expect(await harness.nextRefresh(&events) == [operation.id])
        // The server's clock reaches the expiry at 30 s; the Date header's truncated 0.4 s makes it 30.4 s.
        let deadline = await harness.clock.nextSleep()
        #expect(deadline >= .at(30), "never before the expiry")
        #expect(abs((deadline.offset - .milliseconds(30_400)) / .milliseconds(1)) < 1, "\(deadline)")
        harness.clock.advance(to: .at(30))
        await harness.server.processExpiredOperations()
        harness.clock.advance(to: deadline.advanced(by: .milliseconds(-1)))
        #expect(harness.source.fetchTimes == [.at(0)], "no refresh before the deadline")
        harness.clock.advance(to: deadline)
        #expect(await harness.nextRefresh(&events) == [])
        #expect(harness.source.fetchTimes == [.at(0), deadline], "one refresh, at the deadline")
        #expect(harness.list.operations.isEmpty)
        #expect(harness.clock.pendingSleeps == 0, "nothing left to check")
        await harness.stop()
        #expect(harness.source.fetchTimes.count == 2)
    }

    @Test("a push OperationFinished on the events socket refreshes the list at once")
    func pushRefreshes() async throws {
        let harness = try await StoatListHarness()
        var events = harness.list.events.makeAsyncIterator()
        let operation = await harness.watchedOperation(&events)
        let (client, recorder, clientRunner) = harness.runningClient()
        let follower = Task { [list = harness.list] in await list.refreshOnOperationFinished(client.events) }
        await client.resume(harness.credentials)
        #expect(await recorder.next(.connected) != nil)
        #expect(await harness.server.finishOperation(id: operation.id, result: .approved))
        #expect(await harness.nextRefresh(&events) == [])
        #expect(harness.source.fetchTimes == [.at(0), .at(0)], "refreshed by the push, not by a timer")
        follower.cancel()
        clientRunner.cancel()
        await clientRunner.value
        await harness.stop()
    }

    @Test("an OperationFinished pushed while the socket was down is caught up when the session reconnects")
    func reconnectCatchesUp() async throws {
        let harness = try await StoatListHarness()
        var events = harness.list.events.makeAsyncIterator()
        let operation = await harness.watchedOperation(&events)
        let (client, recorder, clientRunner) = harness.runningClient()
        let follower = Task { [list = harness.list] in await list.follow(client) }
        await client.resume(harness.credentials)
        #expect(await recorder.next(.connected) != nil)
        #expect(await harness.nextRefresh(&events) == [operation.id], "CONNECTED refreshes")
        _ = await harness.server.dropAllSockets()
        #expect(await recorder.next(.disconnected) != nil)
        #expect(await harness.server.finishOperation(id: operation.id, result: .approved), "pushed to nobody")
        #expect(await client.session.reconnectNow())
        #expect(await harness.nextRefresh(&events) == [], "the reconnect caught it up")
        follower.cancel()
        await follower.value
        clientRunner.cancel()
        await clientRunner.value
        await harness.stop()
    }
}

extension TestClock.Instant {
    static func at(_ seconds: Int) -> TestClock.Instant { TestClock.Instant(offset: .seconds(seconds)) }
}
