import AsyncHTTPClient
import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import StoatReferenceServer
import Testing

/// A `StoatClient` pointed at an in-process reference server, its timers on a test clock.
final class ClientHarness: Sendable {
    let server: ReferenceServer
    let clock = TestClock()
    let client: StoatClient
    let recorder: SnapshotRecorder
    private let runner: Task<Void, Never>

    init(healthThreshold: Int = 3, events: ReferenceServer.EventsServer = .bonfire) async throws {
        server = try await ReferenceServer.start(.init(events: events))
        var configuration = StoatClient.Configuration(healthURL: server.healthURL)
        configuration.session.healthThreshold = healthThreshold
        configuration.requestTimeout = .failureBound  // a REST call's exchange runs on the wall clock
        client = StoatClient(
            apiURL: server.apiURL, configuration: configuration, network: ManualNetworkMonitor(.online), clock: clock,
            random: SeededRandomNumberGenerator(seed: 5))
        recorder = SnapshotRecorder(client.session.states)
        let client = client
        runner = Task { await client.run() }
    }

    var snapshot: SessionSnapshot { client.session.snapshot }

    func stop() async {
        runner.cancel()
        await runner.value
        await server.stop()
    }
}

@Suite("StoatClient end to end against the reference server", .hangBound)
struct StoatClientTests {
    @Test("a fresh login with onboarding: LOGIN_UNCACHED, NO_USER, a username, USER_CREATED, CONNECTED")
    func onboarding() async throws {
        let harness = try await ClientHarness()
        let account = harness.server.pendingAccount
        guard case .connecting = await harness.client.logIn(email: account.email, password: account.password) else {
            Issue.record("the login was not accepted")
            return
        }
        await harness.recorder.next(.onboarding)
        try await harness.client.session.submitUsername("lifeline_user")
        await harness.recorder.next(.connected)
        #expect(await harness.recorder.stateTrail == [.ready, .loggingIn, .onboarding, .loggingIn, .connected])
        await harness.stop()
    }

    @Test("MFA: the challenge is answered with a TOTP code, then the session connects")
    func mfa() async throws {
        let harness = try await ClientHarness()
        let secret = Array("lifeline-totp-secret".utf8)
        let account = try await harness.server.addAccount(
            email: "mfa@example.com", password: "correct horse", username: "mfa_user", totpSecret: secret)
        guard
            case .needsMFA(let challenge) = await harness.client.logIn(email: account.email, password: account.password)
        else {
            Issue.record("no MFA challenge")
            return
        }
        #expect(challenge.allowedMethods.contains(.totp))
        let code = TOTP.code(secret: secret, at: await harness.server.now())
        guard case .connecting = await harness.client.continueLogIn(challenge, with: .totp(code)) else {
            Issue.record("the TOTP code was refused")
            return
        }
        await harness.recorder.next(.connected)
        await harness.stop()
    }

    @Test("a refused login stays in READY and shows why; BlockedByShield links to the support article")
    func refusedLogins() async throws {
        let harness = try await ClientHarness()
        let account = harness.server.defaultAccount
        guard case .refused(let wrong) = await harness.client.logIn(email: account.email, password: "wrong") else {
            Issue.record("a wrong password was accepted")
            return
        }
        #expect(wrong.code == .invalidCredentials)
        #expect(harness.snapshot.state == .ready)
        #expect(harness.snapshot.presentation.notice == .loginFailed(wrong.loginFailure))
        await harness.server.answerNextLogins(with: .blockedByShield)
        _ = await harness.client.logIn(email: account.email, password: account.password)
        guard case .loginFailed(let blocked)? = harness.snapshot.presentation.notice else {
            Issue.record("no notice: \(harness.snapshot.presentation)")
            return
        }
        #expect(blocked.supportURL == "https://support.stoat.chat/kb/safety/blocked-for-spam")
        await harness.server.answerNextLogins(with: .disabled)
        guard case .refused(let disabled) = await harness.client.logIn(email: account.email, password: account.password)
        else {
            Issue.record("Disabled was not a refusal")
            return
        }
        #expect(disabled.code == .accountDisabled)
        await harness.stop()
    }

    @Test("InvalidSession looks the account's flags up over REST: a banned account's ERROR says banned")
    func invalidSessionTailored() async throws {
        let harness = try await ClientHarness()
        let account = harness.server.defaultAccount
        #expect(await harness.server.setUserFlags(4, userID: account.userID))
        #expect(await harness.server.revokeSession(token: account.token))
        await harness.client.resume(SessionCredentials(token: account.token, userID: account.userID))
        // The socket's InvalidSession is confirmed over REST (GET /onboard/hello answers 401) three times.
        await harness.clock.advanceThroughSessionChecks()
        let tailored = await harness.recorder.next { snapshot in
            if case .permanentError(let error) = snapshot.presentation.screen { return error.standing != nil }
            return false
        }
        guard case .permanentError(let error)? = tailored?.presentation.screen else { return }
        #expect(error.standing == .banned)
        #expect(error.message == "Your account has been banned.")
        await harness.stop()
    }

    @Test("at 3 failures the health service is asked, and its outage alert reaches the presentation")
    func healthAlert() async throws {
        let harness = try await ClientHarness()
        await harness.server.setHealthAlert(HealthAlert(text: "Stoat is down for maintenance"), pollRate: 30_000)
        await harness.server.refuseNextUpgrades(3)
        let account = harness.server.defaultAccount
        await harness.client.resume(SessionCredentials(token: account.token, userID: account.userID))
        for _ in 1...2 {
            let disconnected = try #require(await harness.recorder.next(.disconnected))
            #expect(disconnected.presentation.outageAlert == nil)
            harness.clock.advance(to: TestClock.Instant(offset: try #require(disconnected.nextRetry)))
        }
        let alerted = await harness.recorder.next { $0.presentation.outageAlert != nil }
        #expect(alerted?.failures == 3)
        #expect(alerted?.presentation.outageAlert?.text == "Stoat is down for maintenance")
        harness.clock.advance(to: TestClock.Instant(offset: try #require(harness.snapshot.nextRetry)))
        let connected = await harness.recorder.next(.connected)
        #expect(connected?.presentation.outageAlert == nil)
        await harness.stop()
    }

    @Test(
        "after the server drops every socket, the subscription arrives once on the new connection, after authentication"
    )
    func subscriptionReplayed() async throws {
        let harness = try await ClientHarness()
        let account = harness.server.defaultAccount
        await harness.client.resume(SessionCredentials(token: account.token, userID: account.userID))
        await harness.recorder.next(.connected)
        await harness.client.session.subscribe(server: harness.server.lobbyServerID)
        await harness.recorder.next { !$0.significantEvents.isEmpty }
        #expect(await harness.server.dropAllSockets() == 1)
        let disconnected = try #require(await harness.recorder.next(.disconnected))
        harness.clock.advance(to: TestClock.Instant(offset: try #require(disconnected.nextRetry)))
        await harness.recorder.next(.connected)
        let lobby = harness.server.lobbyServerID
        try await harness.server.waitUntil(timeout: .failureBound) { records, _ in
            records.count == 2 && records[1].receivedFrames.contains { $0.contains(lobby) }
        }
        // The first connection's Subscribe succeeded when it was written; whether the server read it before
        // the drop is a race. The new connection must carry it exactly once, after Authenticate.
        let frames = try #require(await harness.server.connections().last).receivedFrames
        let subscribes = frames.indices.filter { frames[$0].contains(#""type":"Subscribe""#) }
        #expect(subscribes.count == 1, "once: \(frames)")
        let authenticate = try #require(frames.firstIndex { $0.contains(#""type":"Authenticate""#) })
        #expect(subscribes.allSatisfy { $0 > authenticate }, "after authentication")
        await harness.stop()
    }
}
