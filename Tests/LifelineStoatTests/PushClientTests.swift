import AsyncHTTPClient
import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

@Suite("StoatClient's Web Push subscription", .hangBound)
struct PushClientTests {
    static let subscription = WebPushSubscription(endpoint: "https://push.example/device", p256dh: "BKey", auth: "A1")

    /// Waits until the client's push status satisfies `condition`.
    static func status(
        _ client: StoatClient, _ condition: @escaping @Sendable (PushStatus) -> Bool
    ) async -> PushStatus? {
        for await status in client.pushUpdates where condition(status) { return status }
        return nil
    }

    @Test(
        "Sent once CONNECTED, not at login; a logout ends it on the server; the next login subscribes again; unsubscribePush withdraws it"
    )
    func lifecycle() async throws {
        let server = try await ReferenceServer.start()
        let http = HTTPClient(
            eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: StoatAPI.httpClientConfiguration())
        let client = StoatClient(
            apiURL: server.apiURL, configuration: .patient, network: ManualNetworkMonitor(.online), httpClient: http)
        let recorder = SnapshotRecorder(client.session.states)
        let runner = Task { await client.run() }
        let account = server.defaultAccount

        // Given in READY: nothing is sent.
        await client.subscribePush(Self.subscription)
        #expect(client.pushStatus == .pending)

        // A silent socket: the session logs in but never reaches CONNECTED, and nothing is sent meanwhile.
        await server.setSilent(true)
        await client.resume(SessionCredentials(token: account.token, userID: account.userID))
        try await server.waitUntil(timeout: .failureBound) { records, _ in
            // A silent socket never authenticates, so its record names no token: its Authenticate frame shows it.
            records.contains { record in record.receivedFrames.contains { $0.contains(account.token) } }
        }
        #expect(client.session.snapshot.state != .connected)
        #expect(await server.pushSubscriptions().isEmpty)
        #expect(client.pushStatus == .pending)

        // CONNECTED: sent for this session.
        await server.setSilent(false)
        _ = await server.dropAllSockets()
        await recorder.next(.connected)
        #expect(await Self.status(client) { $0 == .subscribed } == .subscribed)
        var held = await server.pushSubscriptions()
        #expect(held.map(\.userID) == [account.userID])
        #expect(
            held.first?.subscription
                == PushSubscription(
                    endpoint: Self.subscription.endpoint, p256dh: Self.subscription.p256dh, auth: Self.subscription.auth
                ))
        let firstSession = held.first?.sessionID

        // A reconnect of the same session sends nothing new (the server would keep one anyway).
        // A logout: the server drops the session and its subscription; the client waits for the next login.
        #expect(await client.logOut())
        #expect(await Self.status(client) { $0 == .pending } == .pending)
        try await server.waitUntil(timeout: .failureBound) { _, counters in counters.pushSubscriptions == 0 }

        // A new login: subscribed again, on the new session.
        guard case .connecting = await client.logIn(email: account.email, password: account.password) else {
            Issue.record("the login was refused")
            runner.cancel()
            return
        }
        await recorder.next(.connected)
        #expect(await Self.status(client) { $0 == .subscribed } == .subscribed)
        held = await server.pushSubscriptions()
        #expect(held.count == 1)
        #expect(held.first?.sessionID != firstSession)

        // Withdrawn: removed from the server, and not sent for later sessions.
        try await client.unsubscribePush()
        #expect(client.pushStatus == .off)
        #expect(await server.pushSubscriptions().isEmpty)

        runner.cancel()
        await runner.value
        try await http.shutdown()
        await server.stop()
    }

    @Test("A refusal is failed with the server's reason, and tried again at the next CONNECTED")
    func failureRetried() async throws {
        let server = try await ReferenceServer.start()
        let http = HTTPClient(
            eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: StoatAPI.httpClientConfiguration())
        let client = StoatClient(
            apiURL: server.apiURL, configuration: .patient, network: ManualNetworkMonitor(.online), httpClient: http)
        let recorder = SnapshotRecorder(client.session.states)
        let runner = Task { await client.run() }
        let account = server.defaultAccount
        var catchUps = client.catchUps.makeAsyncIterator()
        await client.resume(SessionCredentials(token: account.token, userID: account.userID))
        await recorder.next(.connected)
        // The client idle after its catch-up, session lookups fail on REST (the socket is already
        // authenticated): the subscription is refused.
        _ = await catchUps.next()
        await server.failSessionLookups(for: nil)
        await client.subscribePush(Self.subscription)
        let failed = await Self.status(client) { if case .failed = $0 { true } else { false } }
        guard case .failed(let error) = failed else {
            Issue.record("the subscription did not fail")
            runner.cancel()
            return
        }
        #expect(error.code == .invalidSession)
        #expect(await server.pushSubscriptions().isEmpty)
        await server.restoreSessionLookups()
        _ = await server.dropAllSockets()
        await recorder.next(.connected)
        #expect(await Self.status(client) { $0 == .subscribed } == .subscribed)
        #expect(await server.pushSubscriptions().count == 1)
        runner.cancel()
        await runner.value
        try await http.shutdown()
        await server.stop()
    }
}
