import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import StoatReferenceServer
import Testing

/// A session against Stoat's new events server (the reference server's gateway mode), in both formats: no
/// configuration, no flapping.
@Suite("A session against the gateway", .hangBound)
struct GatewaySessionTests {
    static func harness(
        _ format: StoatWireFormat, events: ReferenceServer.EventsServer = .gateway
    ) async throws
        -> StoatHarness
    {
        let server = try await ReferenceServer.start(.init(events: events))
        return try await StoatHarness(configuration: .init(format: format), server: server)
    }

    @Test(
        "with a subscription it reaches CONNECTED and stays: one refusal, told once, two sockets over a minute",
        arguments: [StoatWireFormat.json, .messagePack])
    func subscriptionRefused(format: StoatWireFormat) async throws {
        let harness = try await Self.harness(format)
        let lobby = harness.server.lobbyServerID
        await harness.session.subscribe(server: lobby)
        await harness.session.logIn(harness.credentials, cached: true)
        await harness.recorder.next(.connected)
        let disconnected = try #require(await harness.recorder.next(.disconnected))
        #expect(disconnected.transitions.last?.cause?.code == .temporary(.frameRefused))
        #expect(disconnected.failures == 1)
        #expect(disconnected.unsupportedEvents == [SignificantEvent(.subscribe, lobby)])
        let delay = try #require(disconnected.nextRetry) - disconnected.time
        #expect(delay >= .seconds(0.8) && delay <= .seconds(1.2))
        harness.clock.advance(by: delay)
        await harness.recorder.next(.connected)
        let reconnectedAt = harness.clock.now
        // A minute of heartbeats, each answered.
        for minute in 1...2 {
            await harness.clock.waitForSleep(until: reconnectedAt.advanced(by: .seconds(30 * minute)))
            harness.clock.advance(by: .seconds(30))
            try await harness.serverReaches { records, _ in
                (records.last?.receivedFrames.filter { $0.contains(#""type":"Ping""#) }.count ?? 0) == minute
            }
        }
        #expect(harness.state == .connected)
        let counters = await harness.server.socketCounters()
        #expect(counters.upgradesAccepted == 2)
        #expect(counters.liveSockets == 1)
        let records = await harness.server.connections()
        #expect(records.last?.receivedFrames.contains { $0.contains("Subscribe") } == false, "not replayed")
        let seen = await harness.recorder.seen
        let reports = zip(seen, seen.dropFirst()).filter { $0.unsupportedEvents != $1.unsupportedEvents }
        #expect(reports.count == 1, "told once")
        #expect(harness.session.snapshot.significantEvents == [SignificantEvent(.subscribe, lobby)], "kept as asked")
        await harness.stop()
    }

    @Test(
        "messages and typing reach the session, the typist's own typing included",
        arguments: [StoatWireFormat.json, .messagePack])
    func messagesAndTyping(format: StoatWireFormat) async throws {
        let harness = try await Self.harness(format)
        let server = harness.server
        await harness.connect()
        let other = try await server.addUser(username: "other")
        try await server.join(userID: other.userID, serverID: server.lobbyServerID)
        _ = try await server.postMessage(as: other.userID, in: server.lobbyChannelID, content: "hello gateway")
        await harness.events.wait { events in
            events.contains { if case .message(let m) = $0 { m.content == "hello gateway" } else { false } }
        }
        await harness.session.beginTyping(channel: server.lobbyChannelID)
        let typing = BonfireEvent.channelStartTyping(channel: server.lobbyChannelID, user: server.defaultAccount.userID)
        await harness.events.wait { $0.contains(typing) }
        #expect(harness.state == .connected)
        #expect(await harness.server.socketCounters().upgradesAccepted == 1)
        await harness.stop()
    }

    @Test(
        "the heartbeat is answered, and a gateway that stops answering is caught",
        arguments: [StoatWireFormat.json, .messagePack])
    func heartbeat(format: StoatWireFormat) async throws {
        let harness = try await Self.harness(format)
        await harness.connect()
        let start = harness.clock.now
        await harness.clock.waitForSleep(until: start.advanced(by: .seconds(30)))
        harness.clock.advance(by: .seconds(30))
        try await harness.serverReaches { records, _ in
            records.last?.receivedFrames.contains { $0.contains(#""type":"Ping""#) } == true
        }
        await harness.clock.waitForSleep(until: start.advanced(by: .seconds(60)))
        await harness.server.setIgnoresPings(true)
        harness.clock.advance(by: .seconds(30))
        try await harness.serverReaches { records, _ in
            (records.last?.receivedFrames.filter { $0.contains(#""type":"Ping""#) }.count ?? 0) == 2
        }
        harness.clock.advance(by: .seconds(10))
        let disconnected = await harness.recorder.next(.disconnected)
        #expect(disconnected?.transitions.last?.cause?.code == .temporary(.heartbeatTimeout))
        await harness.stop()
    }

    @Test("a user's logout closes the socket and comes back to READY", arguments: [StoatWireFormat.json, .messagePack])
    func logout(format: StoatWireFormat) async throws {
        let harness = try await Self.harness(format)
        await harness.connect()
        await harness.session.logOut()
        await harness.recorder.next(.ready)
        try await harness.serverReaches { _, counters in counters.liveSockets == 0 }
        await harness.stop()
    }

    @Test(
        "InvalidSession (the gateway keeps the socket open) is confirmed, then ERROR; its detail reaches the typed error",
        arguments: [StoatWireFormat.json, .messagePack])
    func invalidSession(format: StoatWireFormat) async throws {
        let harness = try await Self.harness(format)
        await harness.session.logIn(SessionCredentials(token: "revoked-or-unknown", userID: "someone"), cached: true)
        await harness.clock.advanceThroughSessionChecks()
        let error = try #require(await harness.recorder.next(.error))
        #expect(harness.authenticator.sessionChecks == 3)
        guard case .permanent(let reason)? = error.transitions.last?.cause else {
            Issue.record("no permanent failure: \(String(describing: error.transitions.last))")
            return
        }
        #expect(reason.code == .invalidSession)
        let cause = try #require(reason.cause as? StoatConnectionError)
        #expect(cause.code == .serverError)
        #expect(cause.detail == "Invalid token provided")
        #expect("\(cause)" == "serverError: the server answered InvalidSession (Invalid token provided)")
        try await harness.serverReaches { _, counters in counters.liveSockets == 0 }
        await harness.stop()
    }

    @Test(
        "a server that drops every socket right after Ready gets the formula's growing delays, not a loop",
        arguments: [ReferenceServer.EventsServer.bonfire, .gateway])
    func dropAfterReady(events: ReferenceServer.EventsServer) async throws {
        let harness = try await Self.harness(.json, events: events)
        await harness.server.setDropsAfterReady(true)
        await harness.session.logIn(harness.credentials, cached: true)
        var failures: [Int] = []
        for _ in 1...5 {
            await harness.recorder.next(.connected)
            let disconnected = try #require(await harness.recorder.next(.disconnected))
            failures.append(disconnected.failures)
            let delay = try #require(disconnected.nextRetry) - disconnected.time
            let nominal = Double((1 << disconnected.failures) - 1)
            #expect(delay >= .seconds(nominal * 0.8) && delay <= .seconds(nominal * 1.2), "\(disconnected.failures)")
            harness.clock.advance(by: delay)
        }
        #expect(failures == [1, 2, 3, 4, 5])
        #expect(await harness.server.socketCounters().upgradesAccepted >= 5)
        await harness.stop()
    }

    @Test(
        "the viewer is the session's user whichever end of Ready's users it is",
        arguments: ReferenceServer.EventsServer.all)
    func viewer(events: ReferenceServer.EventsServer) async throws {
        for knowsUserID in [true, false] {
            let harness = try await ClientHarness(events: events)
            let account = harness.server.defaultAccount
            let friend = try await harness.server.addUser(username: "friend")
            try await harness.server.makeFriends(account.userID, friend.userID)
            await harness.client.resume(
                SessionCredentials(token: account.token, userID: knowsUserID ? account.userID : nil))
            await harness.recorder.next(.connected)
            #expect(harness.client.currentUser?.id == account.userID, "\(events), user id known: \(knowsUserID)")
            await harness.stop()
        }
    }
}
