import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import StoatReferenceServer
import Testing

/// What the real server does that a client must survive, staged by the reference server over loopback,
/// with the client's time on a test clock: a transient `InvalidSession`, a suspension, the framework's
/// 401s, rate limits, a replay that cannot be played, subscriptions that expire.
@Suite("StoatClient against what the real server does", .hangBound)
struct StoatRealServerTests {
    /// Waits for the session check the machine armed after `answers` refused checks (known only within its
    /// jitter), and returns its deadline.
    static func nextSessionCheck(_ clock: TestClock, after answers: Int) async -> TestClock.Instant {
        let nominal = SessionCheckPolicy.standard.backoff.nominalDelay(failures: answers)
        let now = clock.now
        return await clock.nextSleep { deadline in
            let delay = now.duration(to: deadline)
            return delay >= nominal * 0.79 && delay <= nominal * 1.21
        }
    }

    @Test(
        "a transient InvalidSession is confirmed over REST, re-checked while the fault lasts, and never reaches ERROR")
    func transientInvalidSession() async throws {
        let harness = try await SharedClockHarness()
        await harness.connect()
        // A database incident: every session lookup fails. The live socket is not asked again, so it drops.
        await harness.server.failSessionLookups(for: nil)
        #expect(await harness.server.dropAllSockets() == 1)
        let disconnected = try #require(await harness.recorder.next(.disconnected))
        harness.clock.advance(to: .init(offset: try #require(disconnected.nextRetry)))
        // The new socket is answered InvalidSession; the client checks the session over REST (GET
        // /onboard/hello), and the server counts each check it refuses. After two, the incident ends.
        for refused in 1...2 {
            try await harness.server.waitUntil(timeout: .failureBound) { _, counters in
                counters.outageSessionChecks == refused
            }
            #expect(harness.client.session.snapshot.state == .reconnecting, "still trying, not ERROR")
            let check = await Self.nextSessionCheck(harness.clock, after: refused)
            if refused == 2 { await harness.server.restoreSessionLookups() }
            harness.clock.advance(to: check)
        }
        // The third check finds the session valid: a temporary failure, and the session comes back.
        let retry = try #require(await harness.recorder.next(.disconnected))
        #expect(retry.transitions.last?.event == .temporaryFailure)
        harness.clock.advance(to: .init(offset: try #require(retry.nextRetry)))
        await harness.recorder.next(.connected)
        #expect(!(await harness.recorder.stateTrail).contains(.error))
        #expect(await harness.server.socketCounters().outageSessionChecks == 2)
        #expect(await harness.server.liveSockets(token: harness.account.token) == 1)
        await harness.stop()
    }

    @Test("a session really revoked while away reaches ERROR, only after the confirmation window")
    func revokedSessionReachesError() async throws {
        let harness = try await SharedClockHarness()
        await harness.connect()
        #expect(await harness.server.dropAllSockets() == 1)
        let disconnected = try #require(await harness.recorder.next(.disconnected))
        // Revoked while no socket is open: nothing says Logout; the next socket is answered InvalidSession.
        #expect(await harness.server.revokeSession(token: harness.account.token))
        harness.clock.advance(to: .init(offset: try #require(disconnected.nextRetry)))
        await harness.recorder.next { $0.isConfirmingSession }
        for answers in 1...2 {
            let check = await Self.nextSessionCheck(harness.clock, after: answers)
            #expect(harness.client.session.snapshot.state != .error, "not before the window's last check")
            harness.clock.advance(to: check)
        }
        let error = try #require(await harness.recorder.next(.error))
        #expect(error.transitions.last?.event == .permanentFailure)
        let tailored = await harness.recorder.next { snapshot in
            if case .permanentError(let error) = snapshot.presentation.screen { return error.standing != nil }
            return false
        }
        guard case .permanentError(let shown)? = tailored?.presentation.screen else { return }
        #expect(shown.standing == .loggedOut, "flags 0: a plain logout")
        await harness.stop()
    }

    @Test(
        "a suspension: the socket's Logout and drop, READY tailored 'suspended'; a login then answered Disabled, tailored too"
    )
    func suspension() async throws {
        let harness = try await SharedClockHarness()
        await harness.connect()
        #expect(await harness.server.suspendAccount(userID: harness.account.userID))
        let ready = try #require(
            await harness.recorder.next { $0.presentation.notice == .accountStanding(.suspended) })
        #expect(ready.state == .ready)
        #expect(await harness.recorder.stateTrail.suffix(3) == [.connected, .dispose, .ready])
        #expect(
            await harness.recorder.seen.flatMap(\.transitions).contains {
                $0.from == .connected && $0.event == .logout
            },
            "an external LOGOUT, not an InvalidSession")
        // The server drops the socket after its Logout, which the client may act on first.
        let token = harness.account.token
        try await harness.server.waitUntil(timeout: .failureBound) { records, _ in
            !records.contains { $0.token == token && $0.isOpen }
        }
        #expect(await harness.server.liveSockets(token: token) == 0)

        guard
            case .refused(let refusal) = await harness.client.logIn(
                email: harness.account.email, password: harness.account.password)
        else {
            Issue.record("the suspended account's login was accepted")
            return
        }
        #expect(refusal.code == .accountDisabled)
        #expect(refusal.standing == .suspended, "the flags were read before the refusal shows")
        let tailored = await harness.recorder.next { snapshot in
            if case .loginFailed(let failure) = snapshot.presentation.notice { return failure.standing == .suspended }
            return false
        }
        #expect(tailored?.state == .ready)
        #expect(tailored?.presentation.notice?.text == "Your account has been suspended.")
        await harness.stop()
    }

    /// Every REST call the client makes with a session, against a session the server no longer knows.
    static let authenticatedCalls:
        [(String, @Sendable (StoatAPI, SessionCredentials, ReferenceServer) async throws -> Void)] = [
            ("GET /onboard/hello", { api, session, _ in _ = try await api.onboardingHello(session) }),
            (
                "POST /onboard/complete",
                { api, session, _ in _ = try await api.completeOnboarding(session, username: "x_y") }
            ),
            ("GET /users/@me", { api, session, _ in _ = try await api.currentUser(session) }),
            (
                "GET /users/{id}",
                { api, session, server in _ = try await api.user(server.defaultAccount.userID, session) }
            ),
            ("GET /users/dms", { api, session, _ in _ = try await api.directMessages(session) }),
            (
                "GET /channels/{id}",
                { api, session, server in _ = try await api.channel(server.lobbyChannelID, session) }
            ),
            (
                "GET /channels/{id}/messages",
                { api, session, server in _ = try await api.messages(in: server.lobbyChannelID, session) }
            ),
            (
                "POST /channels/{id}/messages",
                { api, session, server in
                    _ = try await api.sendMessage(OutgoingMessage(content: "hi"), in: server.lobbyChannelID, session)
                }
            ),
            ("GET /servers/{id}", { api, session, server in _ = try await api.server(server.lobbyServerID, session) }),
            (
                "GET /servers/{id}/members",
                { api, session, server in _ = try await api.members(of: server.lobbyServerID, session) }
            ),
            (
                "GET /servers/{id}/members/{member}",
                { api, session, server in
                    _ = try await api.member(server.defaultAccount.userID, in: server.lobbyServerID, session)
                }
            ),
            ("GET /auth/session/all", { api, session, _ in _ = try await api.sessions(session) }),
            ("POST /sync/settings/fetch", { api, session, _ in _ = try await api.settings(["theme"], session) }),
            ("GET /sync/unreads", { api, session, _ in _ = try await api.unreads(session) }),
            ("GET /operations", { api, session, _ in _ = try await api.operations(session) }),
            ("POST /auth/session/logout", { api, session, _ in try await api.logout(session) }),
        ]

    @Test("the framework's 401 without a type, on every REST call the client makes, is the invalid-session error")
    func frameworkUnauthorized() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let session = SessionCredentials(token: account.token, userID: account.userID)
        #expect(await server.revokeSession(token: account.token))
        let api = StoatAPI(baseURL: server.apiURL, requestTimeout: .failureBound)
        for (name, call) in Self.authenticatedCalls {
            do {
                try await call(api, session, server)
                Issue.record("\(name) succeeded with a revoked session")
            } catch let error as StoatAPIError {
                #expect(error.code == .invalidSession, "\(name): \(error)")
                #expect(error.status == 401, "\(name)")
                #expect(error.kind == nil, "\(name): the catcher names no kind")
            }
        }
        // Logging out a session that already ended is what was asked for: done, not an error.
        try await StoatAuthenticator(api: api).endSession(session)
        await server.stop()
    }

    @Test("a logout after the server ended the session goes to READY without an error")
    func logoutOfAnEndedSession() async throws {
        let harness = try await SharedClockHarness()
        await harness.connect()
        #expect(await harness.server.dropAllSockets() == 1)
        await harness.recorder.next(.disconnected)
        #expect(await harness.server.revokeSession(token: harness.account.token))
        #expect(await harness.client.session.logOut())
        let ready = try #require(await harness.recorder.next(.ready))
        #expect(ready.presentation.notice == nil, "the user's own logout: nothing to tell")
        #expect(!(await harness.recorder.stateTrail).contains(.error))
        await harness.stop()
    }

    @Test("a tiny auth bucket: the second login waits out the server's 429 on the client's clock, then succeeds")
    func rateLimitedLoginWaits() async throws {
        let harness = try await SharedClockHarness(configure: {
            // A window the call's 30 s deadline can wait out, below the client's cap on a server-stated wait
            // (10 s); the wait is found by its exact length, which no jittered timer of the session shares.
            $0.rateLimits = RateLimitPolicy(window: .milliseconds(9_437), limits: ["auth": 1], defaultLimit: 20)
        })
        let first = await harness.client.logIn(email: harness.account.email, password: harness.account.password)
        guard case .connecting = first else {
            Issue.record("the first login was refused: \(first)")
            return
        }
        await harness.recorder.next(.connected)
        // Another client of the same machine logs in: the server's bucket for this caller is empty.
        let other = StoatClient(
            apiURL: harness.server.apiURL, configuration: .patientREST(), network: ManualNetworkMonitor(.online),
            clock: harness.clock)
        let runner = Task { await other.run() }
        let second = Task { await other.logIn(email: harness.account.email, password: harness.account.password) }
        let now = harness.clock.now
        let wait = await harness.clock.nextSleep { now.duration(to: $0) == .milliseconds(9_437) }
        #expect(await harness.server.socketCounters().rateLimited == 1, "answered 429 once")
        harness.clock.advance(to: wait)
        // stoatchat refills a bucket only once its clock is past the reset, so at that very millisecond it
        // answers 429 with retry_after 0: the client waits a millisecond rather than spend its retries.
        let boundary = await harness.clock.nextSleep { $0 == wait.advanced(by: .milliseconds(1)) }
        harness.clock.advance(to: boundary)
        let outcome = await second.value
        guard case .connecting = outcome else {
            Issue.record("the second login failed instead of waiting: \(outcome)")
            return
        }
        #expect(await harness.server.socketCounters().rateLimited == 2, "and once at the boundary, then never again")
        runner.cancel()
        await runner.value
        await harness.stop()
    }

    @Test("every reconnect restores each subscription exactly once, after authentication")
    func subscriptionsReplayedOnce() async throws {
        let harness = try await SharedClockHarness()
        await harness.connect()
        let lobby = harness.server.lobbyServerID
        await harness.client.session.subscribe(server: lobby)
        try await harness.server.waitUntil(timeout: .failureBound) { records, _ in
            records.last?.subscriptions == [lobby]
        }
        for round in 1...3 {
            #expect(await harness.server.dropAllSockets() == 1)
            let disconnected = try #require(await harness.recorder.next(.disconnected))
            harness.clock.advance(to: .init(offset: try #require(disconnected.nextRetry)))
            await harness.recorder.next(.connected)
            try await harness.server.waitUntil(timeout: .failureBound) { records, _ in
                records.count == round + 1 && records[round].subscriptions == [lobby]
            }
        }
        for record in await harness.server.connections() {
            let frames = record.receivedFrames
            let subscribes = frames.indices.filter { frames[$0].contains(#""type":"Subscribe""#) }
            #expect(subscribes.count == 1, "once per connection: \(frames)")
            let authenticate = try #require(frames.firstIndex { $0.contains(#""type":"Authenticate""#) })
            #expect(subscribes.allSatisfy { $0 > authenticate })
        }
        await harness.stop()
    }

    @Test("a subscription the server refuses (not a member yet) stays recorded and takes at the next connection")
    func refusedSubscriptionRetried() async throws {
        let harness = try await SharedClockHarness()
        let other = "01J00000000000000000000OTH"
        await harness.server.addServer(
            StoatServer(id: other, owner: harness.server.defaultAccount.userID, name: "Other"))
        let friend = try await harness.server.addUser(username: "friend")
        try await harness.server.join(userID: friend.userID, serverID: other)
        await harness.connect()
        // bonfire subscribes a socket only to a server the user is a member of, and says nothing otherwise.
        await harness.client.session.subscribe(server: other)
        try await harness.server.waitUntil(timeout: .failureBound) { records, _ in
            records.last?.receivedFrames.contains { $0.contains(#""type":"Subscribe""#) } == true
        }
        #expect(await harness.server.connections().last?.activeSubscriptions == [], "refused: not a member")
        #expect(harness.client.session.snapshot.significantEvents == [SignificantEvent(.subscribe, other)])
        // The user joins; the next connection plays the recorded subscription again, and this time it takes.
        try await harness.server.join(userID: harness.account.userID, serverID: other)
        #expect(await harness.server.dropAllSockets() == 1)
        let disconnected = try #require(await harness.recorder.next(.disconnected))
        harness.clock.advance(to: .init(offset: try #require(disconnected.nextRetry)))
        await harness.recorder.next(.connected)
        try await harness.server.waitUntil(timeout: .failureBound) { records, _ in
            records.count == 2 && records[1].activeSubscriptions == [other]
        }
        // The member events it brings arrive: a display name change of a member the user has no other tie to.
        var events = harness.client.events.makeAsyncIterator()
        try await harness.server.setDisplayName(userID: friend.userID, displayName: "Friend")
        while let event = try await events.next() {
            if case .userUpdate(let id, let data, _) = event, id == friend.userID {
                #expect(data.displayName == "Friend")
                break
            }
        }
        await harness.stop()
    }

    @Test(
        "subscriptions lapse after their lifetime on the server: renewed, member events keep coming; not renewed, they stop",
        arguments: [true, false])
    func subscriptionLifetime(renewed: Bool) async throws {
        let harness = try await SharedClockHarness(
            configure: { $0.subscriptionLifetime = .seconds(60) },
            client: { $0.session.subscriptionRenewal = renewed ? .seconds(40) : nil })
        let lobby = harness.server.lobbyServerID
        let other = try await harness.server.addUser(username: "other")
        try await harness.server.join(userID: other.userID, serverID: lobby)
        var events = harness.client.events.makeAsyncIterator()
        await harness.connect()
        await harness.client.session.subscribe(server: lobby)
        try await harness.server.waitUntil(timeout: .failureBound) { records, _ in
            records.last?.activeSubscriptions == [lobby]
        }
        for step in 1...2 {
            // The renewal timer is armed (at CONNECTED, then after each renewal) before the clock passes it.
            if renewed { await harness.clock.waitForSleep(until: .init(offset: .seconds(40 * step))) }
            harness.advance(to: Double(40 * step))
            if renewed {
                try await harness.server.waitUntil(timeout: .failureBound) { records, _ in
                    records.last?.receivedFrames.filter { $0.contains(#""type":"Subscribe""#) }.count == step + 1
                }
            }
        }
        // At 80 s: renewed at 40 s and 80 s, the subscription holds; unrenewed since 0 s, it has lapsed.
        for name in ["one", "two"] {
            try await harness.server.setDisplayName(userID: other.userID, displayName: name)
        }
        // A message in the lobby reaches every member, subscribed or not: what came before it is all that came.
        try await harness.server.postMessage(as: other.userID, in: harness.server.lobbyChannelID, content: "marker")
        var names: [String] = []
        while let event = try await events.next() {
            if case .userUpdate(let id, let data, _) = event, id == other.userID, let name = data.displayName {
                names.append(name)
            }
            if case .message(let message) = event, message.content == "marker" { break }
        }
        let record = try #require(await harness.server.connections().last)
        if renewed {
            #expect(names == ["one", "two"])
            #expect(record.lapsedSubscriptions == [])
        } else {
            // bonfire drops a lapsed subscription after the next event: one more arrives, then none.
            #expect(names == ["one"])
            #expect(record.lapsedSubscriptions == [lobby])
        }
        await harness.stop()
    }
}
