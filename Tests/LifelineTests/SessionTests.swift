import Lifeline
import LifelineCore
import LifelineTesting
import Testing

@Suite("The session runtime", .hangBound)
struct SessionTests {
    @Test("retries after (2^x − 1) units ±20 % for x = 1, 2, 3 in a row, and CONNECTED resets the count")
    func retryBackoff() async throws {
        let harness = Harness(polling: false)
        var expectedRandom = SeededRandomNumberGenerator(seed: harness.seed)
        var connection = await harness.connected()
        for failures in 1...3 {
            await connection.end(.temporary(.socketDropped))
            #expect(harness.state == .disconnected)
            #expect(harness.session.snapshot.failures == failures)
            let start = harness.clock.now
            let deadline = await harness.clock.nextSleep()
            let delay = start.duration(to: deadline)
            let nominal = Double((1 << failures) - 1)
            #expect(delay >= .seconds(nominal * 0.8) && delay <= .seconds(nominal * 1.2), "x=\(failures): \(delay)")
            #expect(delay == harness.policy.delay(failures: failures, using: &expectedRandom))
            #expect(harness.session.snapshot.nextRetry == deadline.offset)
            harness.clock.advance(to: deadline.advanced(by: .nanoseconds(-1)))
            #expect(harness.state == .disconnected, "not a nanosecond early")
            harness.clock.advance(to: deadline)
            connection = await harness.connections.nextConnection()
            #expect(harness.state == .reconnecting)
        }
        await connection.ready()
        #expect(harness.state == .connected)
        #expect(harness.session.snapshot.failures == 0)
        #expect(harness.connections.mostRunning == 1)
        await harness.stop()
    }

    @Test("leaving DISCONNECTED by LOGOUT or DEVICE_OFFLINE cancels the retry timer: RETRY never fires later")
    func retryTimerCancelled() async throws {
        for leave in ["logout", "offline"] {
            let harness = Harness()
            let connection = await harness.connected()
            await connection.end(.temporary(.socketDropped))
            let deadline = await harness.clock.nextSleep()
            #expect(harness.clock.pendingSleeps == 1)
            if leave == "logout" {
                await harness.session.logOut()
                await harness.recorder.next(.ready)
            } else {
                harness.network.set(.offline)
                await harness.recorder.next(.offline)
            }
            await harness.clock.waitForPendingSleeps(0)  // the timer's sleep was cancelled
            harness.clock.advance(to: deadline.advanced(by: .seconds(3600)))
            if leave == "offline" {
                // Only the user (or the network) takes OFFLINE anywhere: this is the first new connection.
                #expect(await harness.session.reconnectNow())
                #expect(await harness.connections.nextConnection().generation == 2)
            } else {
                #expect(await harness.session.reconnectNow() == false)
            }
            let retries = await harness.recorder.seen.flatMap(\.transitions).filter { $0.event == .retry }
            #expect(retries.isEmpty, "\(leave)")
            await harness.stop()
        }
    }

    @Test(
        "offline on entering DISCONNECTED goes to OFFLINE with no attempt until DEVICE_ONLINE, then reconnects at once")
    func offlineThenOnline() async throws {
        let harness = Harness()
        let connection = await harness.connected()
        harness.network.set(.offline)
        await harness.recorder.next { $0.network == .offline }
        #expect(harness.state == .connected, "CONNECTED only records the network")
        await connection.end(.temporary(.init(code: .heartbeatTimeout, message: "heartbeatTimeout")))
        #expect(
            harness.session.snapshot.transitions.map(\.description) == [
                "CONNECTED -->|TEMPORARY_FAILURE| DISCONNECTED (failures: 1)",
                "DISCONNECTED -->|DEVICE_OFFLINE| OFFLINE (failures: 1)",
            ])
        #expect(harness.session.snapshot.presentation.banner == .deviceOffline)
        #expect(harness.clock.pendingSleeps == 0, "no retry timer while offline")
        #expect(harness.connections.made == 1)
        harness.network.set(.online)
        let reconnecting = await harness.recorder.next(.reconnecting)
        #expect(reconnecting?.transitions.first?.event == .deviceOnline)
        #expect(reconnecting?.time == .zero, "at once: the clock did not move")
        let next = await harness.connections.nextConnection()
        #expect(next.generation == 2)
        await harness.stop()
    }

    @Test("RECONNECTING invalidates the caches exactly once per entry; CONNECTING never does")
    func cacheInvalidation() async throws {
        let harness = Harness()
        var connection = await harness.connected()
        #expect(harness.caches.invalidations == 0)
        for entry in 1...3 {
            await connection.end(.temporary(.socketDropped))
            harness.clock.advance(to: await harness.clock.nextSleep())
            connection = await harness.connections.nextConnection()
            #expect(harness.caches.invalidations == entry)
            if entry == 2 { await connection.ready() }
        }
        #expect(harness.caches.invalidations == 3)
        await harness.stop()
    }

    @Test("a report from a superseded connection after a new one opened changes nothing")
    func staleConnectionIgnored() async throws {
        let harness = Harness()
        let old = await harness.connected()
        await old.end(.temporary(.socketDropped))
        harness.clock.advance(to: await harness.clock.nextSleep())
        let new = await harness.connections.nextConnection()
        let before = harness.session.snapshot
        await old.end(.temporary(.socketDropped))
        await old.ready()
        await old.end(.loggedOut)
        #expect(harness.session.snapshot == before)
        #expect(harness.state == .reconnecting)
        await new.ready()
        #expect(harness.state == .connected)
        #expect(harness.connections.mostRunning == 1)
        await harness.stop()
    }

    @Test(
        "LOGOUT while connecting closes the attempt, and DISPOSE → READY leaves none of the old client's tasks running")
    func disposeEndsEverything() async throws {
        let harness = Harness(healthThreshold: 1)
        await harness.session.logIn(credentials, cached: true)
        let first = await harness.connections.nextConnection()
        // DISCONNECTED: retry timer + health polling.
        await first.end(.temporary(.init(code: .connectFailed, message: "connectFailed")))
        _ = await harness.clock.nextSleep()
        harness.clock.advance(to: await harness.clock.nextSleep())
        let attempt = await harness.connections.nextConnection()  // RECONNECTING, connecting
        #expect(harness.session.runningClientTasks >= 2, "connection and health polling are running")
        await harness.session.logOut()
        let ready = await harness.recorder.next(.ready)
        #expect(ready != nil)
        #expect(attempt.wasCancelled && attempt.isFinished)
        #expect(harness.session.runningClientTasks == 0)
        #expect(harness.clock.pendingSleeps == 0)
        #expect(harness.connections.running == 0)
        #expect(harness.caches.discards == 1)
        #expect(harness.authenticator.endedSessions == [credentials])
        await harness.stop()
        #expect(harness.session.runningTasks == 0)
    }

    @Test("health polling starts at 3 failures, repeats at the service's poll rate, and stops on CONNECTED")
    func healthPolling() async throws {
        let harness = Harness()
        let alert = OutageAlert(text: "Stoat is having trouble")
        harness.health.answer(.success(HealthStatus(alert: alert, pollInterval: .seconds(30))))
        var connection = await harness.connected()
        for _ in 1...2 {
            await connection.end(.temporary(.socketDropped))
            harness.clock.advance(to: await harness.clock.nextSleep())
            connection = await harness.connections.nextConnection()
        }
        #expect(harness.health.checks == 0, "not below 3 failures")
        await connection.end(.temporary(.socketDropped))
        let shown = await harness.recorder.next { $0.presentation.outageAlert != nil }
        #expect(shown?.presentation.outageAlert == alert)
        #expect(harness.health.checks == 1)
        let sleeps = [await harness.clock.nextSleep(), await harness.clock.nextSleep()]
        let poll = try #require(sleeps.first { harness.clock.now.duration(to: $0) == .seconds(30) }, "\(sleeps)")
        harness.clock.advance(to: poll)
        let nextPoll = await harness.clock.nextSleep()
        #expect(poll.duration(to: nextPoll) == .seconds(30), "repeats at the service's poll rate")
        #expect(harness.health.checks == 2)
        // The retry (≈ 7 s) fired too when the clock passed it: a new connection is waiting.
        connection = await harness.connections.nextConnection()
        await connection.ready()
        #expect(harness.session.snapshot.presentation.outageAlert == nil)
        await harness.clock.waitForPendingSleeps(0)  // polling stopped
        harness.clock.advance(by: .seconds(600))
        #expect(harness.health.checks == 2)
        await harness.stop()
    }

    @Test("PERMANENT_FAILURE(InvalidSession) looks up the account, and ERROR names the reason")
    func permanentFailureTailored() async throws {
        for standing in AccountStanding.allCases {
            let harness = Harness()
            harness.authenticator.setStanding(standing, for: "user-1")
            await harness.session.logIn(credentials, cached: true)
            let connection = await harness.connections.nextConnection()
            await connection.end(.permanent(.invalidSession))
            #expect(harness.state == .connecting, "confirming the InvalidSession first")
            await harness.confirmInvalidSession()
            #expect(await harness.recorder.next(.error) != nil)
            #expect(harness.authenticator.sessionChecks == 3)
            let tailored = await harness.recorder.next {
                if case .permanentError(let error) = $0.presentation.screen { return error.standing != nil }
                return false
            }
            guard case .permanentError(let error) = tailored?.presentation.screen else { return }
            #expect(error.reason == standing.rawValue)
            #expect(harness.authenticator.standingLookups == ["user-1"])
            #expect(harness.session.snapshot.lastError?.code == .permanentFailure)
            await harness.session.dismissError()
            await harness.recorder.next(.ready)
            await harness.stop()
        }
    }

    @Test(
        "a session revoked while CONNECTED drops to DISCONNECTED; the reconnect meets the invalid session and goes to ERROR"
    )
    func permanentFailureWhileConnected() async throws {
        let harness = Harness()
        let connection = await harness.connected()
        await connection.end(.permanent(.invalidSession))
        #expect(harness.state == .disconnected)
        harness.clock.advance(to: await harness.clock.nextSleep())
        await harness.connections.nextConnection().end(.permanent(.invalidSession))
        await harness.confirmInvalidSession()
        #expect(await harness.recorder.next(.error) != nil)
        await harness.stop()
    }

    @Test("an external logout ends in READY with \"You were logged out\" and does not end the session again")
    func externalLogout() async throws {
        let harness = Harness()
        let connection = await harness.connected()
        await connection.end(.loggedOut)
        let ready = await harness.recorder.next(.ready)
        #expect(ready?.presentation.notice == .loggedOut)
        #expect(ready?.presentation.notice?.text == "You were logged out.")
        #expect(harness.authenticator.endedSessions.isEmpty)
        await harness.stop()
    }

    @Test("fresh login with onboarding: NO_USER, a refused username stays, an accepted one connects")
    func onboarding() async throws {
        let harness = Harness()
        harness.authenticator.answerOnboarding(.success(true))
        await harness.session.logIn(credentials, cached: false)
        await harness.recorder.next(.onboarding)
        #expect(harness.session.snapshot.presentation.screen == .usernameSelection)
        harness.authenticator.answerCompletion(.failure(ScriptedError(message: "UsernameTaken")))
        await #expect(throws: SessionError.self) { try await harness.session.submitUsername("taken") }
        #expect(harness.state == .onboarding)
        #expect(harness.session.snapshot.lastError?.code == .onboardingFailed)
        harness.authenticator.answerCompletion(.success(()))
        try await harness.session.submitUsername("lifeline")
        #expect(harness.state == .loggingIn)
        let connection = await harness.connections.nextConnection()
        await connection.ready()
        #expect(harness.state == .connected)
        #expect(harness.authenticator.usernames == ["taken", "lifeline"])
        #expect(harness.authenticator.onboardingChecks == 2)
        await harness.stop()
    }

    @Test("a username outside ONBOARDING is refused with a typed error")
    func usernameInWrongState() async throws {
        let harness = Harness()
        let error = await #expect(throws: SessionError.self) { try await harness.session.submitUsername("x") }
        #expect(error?.code == .wrongState)
        await harness.stop()
    }

    @Test("an onboarding check that fails sends LOGGING_IN to ERROR, permanently or not as the error says")
    func onboardingCheckFails() async throws {
        for (answer, code) in [
            (SessionFailure.permanent(.invalidSession), SessionError.Code.permanentFailure),
            (.temporary(.init(code: .requestFailed, message: "requestFailed")), .temporaryFailure),
        ] {
            let harness = Harness()
            harness.authenticator.answerOnboarding(.failure(answer))
            await harness.session.logIn(credentials, cached: false)
            if code == .permanentFailure { await harness.confirmInvalidSession() }
            let error = await harness.recorder.next(.error)
            #expect(error?.lastError?.code == code)
            await harness.stop()
        }
    }

    @Test("a login that failed at the login interface shows its notice and support link in READY only")
    func loginFailureNotice() async throws {
        let harness = Harness()
        let blocked = LoginFailure(
            code: LoginFailure.Code(rawValue: "BlockedByShield"), message: "Blocked by Stoat's shield.",
            supportURL: "https://support.stoat.chat/kb/safety/blocked-for-spam")
        #expect(await harness.session.reportLoginFailure(blocked))
        #expect(harness.session.snapshot.presentation.notice == .loginFailed(blocked))
        _ = await harness.connected()
        #expect(await harness.session.reportLoginFailure(blocked) == false)
        await harness.stop()
    }

    @Test("every observer starts with the current snapshot, then sees every later one in order")
    func observers() async throws {
        let harness = Harness()
        let connection = await harness.connected()
        let late = SnapshotRecorder(harness.session.states)
        let first = await late.next { _ in true }
        #expect(first?.state == .connected)
        await connection.end(.temporary(.socketDropped))
        #expect(await late.next { _ in true }?.state == .disconnected)
        #expect(await harness.recorder.next(.disconnected) != nil)
        #expect(await harness.recorder.stateTrail == [.ready, .connecting, .connected, .disconnected])
        await harness.stop()
        #expect(await late.next { _ in false } == nil, "states finish when run() ends")
    }
}
