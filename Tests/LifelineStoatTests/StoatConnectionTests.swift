import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import StoatReferenceServer
import Testing

@Suite("Stoat's events socket against the reference server", .hangBound)
struct StoatConnectionTests {
    @Test("a cached login authenticates with a frame, not the URL, and reaches CONNECTED once Ready is decoded")
    func cachedLogin() async throws {
        let harness = try await StoatHarness()
        await harness.connect()
        let records = await harness.server.connections()
        #expect(records.count == 1)
        #expect(records.first?.receivedReady == true)
        #expect(records.first?.receivedFrames.first?.contains(#""type":"Authenticate""#) == true)
        guard case .ready(let ready)? = harness.events.all.first else {
            Issue.record("Ready was not delivered: \(harness.events.all)")
            return
        }
        #expect(ready.users.contains { $0.id == harness.server.defaultAccount.userID })
        #expect(ready.servers.contains { $0.id == harness.server.lobbyServerID })
        #expect(ready.channels.contains { $0.id == harness.server.lobbyChannelID && $0.kind == .textChannel })
        #expect(!ready.members.isEmpty)
        await harness.stop()
    }

    @Test("a dropped socket is a TEMPORARY_FAILURE; the retry reconnects, and there are never two sockets")
    func droppedSocket() async throws {
        let harness = try await StoatHarness()
        await harness.connect()
        #expect(await harness.server.dropAllSockets() == 1)
        let disconnected = await harness.recorder.next(.disconnected)
        #expect(disconnected?.lastError?.code == .temporaryFailure)
        harness.clock.advance(by: .seconds(2))  // past the first retry (≤ 1.2 s)
        await harness.recorder.next(.connected)
        let counters = await harness.server.socketCounters()
        #expect(counters.upgradesAccepted == 2)
        #expect(counters.liveSockets == 1)
        await harness.stop()
    }

    @Test("refused upgrades back off by the formula until one is accepted")
    func refusedUpgrades() async throws {
        let harness = try await StoatHarness()
        await harness.server.refuseNextUpgrades(2)
        await harness.session.logIn(harness.credentials, cached: true)
        var failures: [Int] = []
        for _ in 0..<2 {
            let disconnected = try #require(await harness.recorder.next(.disconnected))
            failures.append(disconnected.failures)
            #expect(disconnected.transitions.last?.cause?.code == .temporary(.connectFailed))
            let delay = try #require(disconnected.nextRetry) - disconnected.time
            let nominal = Double((1 << disconnected.failures) - 1)
            #expect(delay >= .seconds(nominal * 0.8) && delay <= .seconds(nominal * 1.2))
            harness.clock.advance(by: delay)
        }
        await harness.recorder.next(.connected)
        #expect(failures == [1, 2])
        #expect(await harness.server.socketCounters().upgradesRefused == 2)
        await harness.stop()
    }

    @Test("a server that stops answering pings is caught by the heartbeat: Ping every 30 s, no Pong within 10 s")
    func heartbeat() async throws {
        let harness = try await StoatHarness()
        await harness.connect()
        let start = harness.clock.now
        // The first Ping is due 30 s after the socket opened; a healthy server answers it, and the
        // watchdog then sleeps until the next Ping (not until the Pong deadline).
        await harness.clock.waitForSleep(until: start.advanced(by: .seconds(30)))
        harness.clock.advance(by: .seconds(30))
        try await harness.serverReaches { records, _ in
            records.last?.receivedFrames.contains { $0.contains(#""type":"Ping","data":30000"#) } == true
        }
        await harness.clock.waitForSleep(until: start.advanced(by: .seconds(60)))
        await harness.server.setIgnoresPings(true)
        harness.clock.advance(by: .seconds(30))
        try await harness.serverReaches { records, _ in
            (records.last?.receivedFrames.filter { $0.contains(#""type":"Ping""#) }.count ?? 0) == 2
        }
        #expect(harness.state == .connected)
        // A Pong that does not match the Ping's data does not count. The typing event after it is
        // delivered once both frames were handled: proof that the Pong was read before the clock moves.
        await harness.clock.waitForSleep(until: start.advanced(by: .seconds(70)))
        let token = harness.credentials.token
        _ = await harness.server.sendRawFrame(#"{"type":"Pong","data":1}"#, token: token)
        _ = await harness.server.sendRawFrame(#"{"type":"ChannelStartTyping","id":"c9","user":"u9"}"#, token: token)
        await harness.events.wait(until: { $0.contains(.channelStartTyping(channel: "c9", user: "u9")) })
        #expect(harness.state == .connected, "a Pong that answers no Ping changes nothing")
        harness.clock.advance(by: .seconds(10))
        let disconnected = await harness.recorder.next(.disconnected)
        #expect(disconnected?.transitions.last?.cause?.code == .temporary(.heartbeatTimeout))
        #expect(disconnected?.transitions.last?.cause?.message == "no Pong within 10.0 seconds")
        await harness.stop()
    }

    @Test("a socket that opens but stays silent is dropped by the connect timeout")
    func silentStart() async throws {
        let harness = try await StoatHarness()
        await harness.server.setSilent(true)
        await harness.session.logIn(harness.credentials, cached: true)
        try await harness.serverReaches { _, counters in counters.liveSockets == 1 }
        harness.clock.advance(by: .seconds(10))
        let disconnected = await harness.recorder.next(.disconnected)
        #expect(disconnected?.transitions.last?.cause?.code == .temporary(.connectTimeout))
        try await harness.serverReaches { _, counters in counters.liveSockets == 0 }
        await harness.stop()
    }

    @Test("Authenticated without Ready is dropped by the Ready deadline (extension)")
    func readyDeadline() async throws {
        let harness = try await StoatHarness(configuration: .init(readyTimeout: .seconds(5)))
        await harness.server.setReadyDelay(.seconds(600))
        await harness.session.logIn(harness.credentials, cached: true)
        await harness.clock.waitForSleep(until: harness.clock.now.advanced(by: .seconds(5)))  // Authenticated handled
        harness.clock.advance(by: .seconds(5))
        let disconnected = await harness.recorder.next(.disconnected)
        #expect(disconnected?.transitions.last?.cause?.code == .temporary(.readyTimeout))
        await harness.stop()
    }

    @Test("the server's Logout frame is an external LOGOUT: READY says \"You were logged out\"")
    func externalLogout() async throws {
        let harness = try await StoatHarness()
        await harness.connect()
        #expect(await harness.server.revokeSession(token: harness.credentials.token))
        let ready = await harness.recorder.next(.ready)
        #expect(ready?.presentation.notice == .loggedOut)
        #expect(ready?.transitions.first?.event == .ready)
        let logout = await harness.recorder.seen.flatMap(\.transitions).first { $0.event == .logout }
        #expect(logout?.from == .connected)
        await harness.stop()
    }

    @Test(
        "InvalidSession, confirmed by the session checks, is a PERMANENT_FAILURE: ERROR, tailored by the account's standing"
    )
    func invalidSession() async throws {
        let harness = try await StoatHarness()
        harness.authenticator.setStanding(.banned, for: "someone")
        await harness.session.logIn(SessionCredentials(token: "revoked-or-unknown", userID: "someone"), cached: true)
        await harness.clock.advanceThroughSessionChecks()
        let error = await harness.recorder.next(.error)
        #expect(error?.transitions.last?.cause == .permanent(.invalidSession))
        #expect(harness.authenticator.sessionChecks == 3)
        #expect(error?.lastError?.code == .permanentFailure)
        let tailored = await harness.recorder.next { snapshot in
            if case .permanentError(let error) = snapshot.presentation.screen { return error.standing == .banned }
            return false
        }
        #expect(tailored != nil)
        await harness.stop()
    }

    @Test("other server errors are temporary; unknown events and malformed frames are tolerated and counted")
    func toleratedFrames() async throws {
        let harness = try await StoatHarness()
        await harness.connect()
        let token = harness.credentials.token
        _ = await harness.server.sendRawFrame(#"{"type":"SomethingNew","data":1}"#, token: token)
        _ = await harness.server.sendRawFrame(#"{"type":"Message","_id":42}"#, token: token)
        _ = await harness.server.sendRawFrame("not json at all", token: token)
        _ = await harness.server.sendRawFrame(
            #"{"type":"Bulk","v":[{"type":"ChannelStartTyping","id":"c1","user":"u1"},{"type":"Nope"}]}"#, token: token)
        _ = await harness.server.sendRawFrame(
            #"{"type":"Error","data":{"type":"InternalError","location":"x"}}"#, token: token)
        let disconnected = await harness.recorder.next(.disconnected)
        #expect(
            disconnected?.transitions.last?.cause == .temporary(.init(code: .serverError, message: "InternalError")))
        #expect(harness.factory.statistics.unknownEvents == 2)
        #expect(harness.factory.statistics.undecodableFrames == 2)
        #expect(harness.events.all.contains(.channelStartTyping(channel: "c1", user: "u1")))
        await harness.stop()
    }

    @Test("a large Ready (1 MB) is decoded and connects")
    func largeReady() async throws {
        let harness = try await StoatHarness()
        await harness.server.setReadyMinimumSize(1_000_000)
        await harness.connect()
        guard case .ready(let ready)? = harness.events.all.first else { return }
        #expect(ready.users.count > 100)
        await harness.stop()
    }
}

extension StoatHarness {
    var state: SessionState { session.snapshot.state }
}

@Suite("Closing Stoat's events socket", .hangBound)
struct StoatConnectionCloseTests {
    @Test("a user's logout closes the socket at once: DISPOSE reaches READY without waiting on the peer")
    func logoutClosesAtOnce() async throws {
        let harness = try await StoatHarness()
        await harness.connect()
        await harness.session.logOut()
        let ready = await harness.recorder.next(.ready)
        #expect(ready != nil)
        try await harness.serverReaches { _, counters in counters.liveSockets == 0 }
        await harness.stop()
    }
}
