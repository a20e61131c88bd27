import Lifeline
import LifelineCore
import LifelineTesting
import Testing

@Suite("The runtime performs the machine's decisions", .hangBound)
struct SessionDecisionTests {
    @Test(
        "InvalidSession is checked over the API while CONNECTING stays on screen; a valid session is a temporary failure"
    )
    func invalidSessionNotConfirmed() async throws {
        let harness = Harness(polling: false)
        harness.authenticator.answerSessionCheck(.success(.valid))
        await harness.session.logIn(credentials, cached: true)
        let connection = await harness.connections.nextConnection()
        await connection.end(.permanent(.invalidSession))
        let disconnected = try #require(await harness.recorder.next(.disconnected))
        #expect(disconnected.transitions.last?.cause?.code == .temporary(.unconfirmedInvalidSession))
        #expect(disconnected.lastError?.failure?.code == .temporary(.unconfirmedInvalidSession))
        #expect(harness.authenticator.sessionChecks == 1)
        #expect(
            !connection.wasCancelled && connection.isFinished,
            "the connection that met InvalidSession ended by itself, and the session did not close it")
        #expect(await harness.recorder.stateTrail == [.ready, .connecting, .disconnected], "never ERROR")
        await harness.stop()
    }

    @Test("a connection failure is carried once: by its transition, and by the last error once no transition has it")
    func failureCarriedOnce() async throws {
        let harness = Harness(polling: false)
        let connection = await harness.connected()
        await connection.end(.temporary(.socketDropped))
        let disconnected = try #require(await harness.recorder.next(.disconnected))
        let cause = try #require(disconnected.transitions.last?.cause)
        #expect(disconnected.lastErrorStorage == .lastTransitionCause, "read from the transition, not held twice")
        #expect(disconnected.lastError?.code == .temporaryFailure)
        #expect(disconnected.lastError?.failure == cause)
        _ = await harness.retry()
        let reconnecting = try #require(await harness.recorder.next(.reconnecting))
        #expect(reconnecting.transitions.allSatisfy { $0.cause == nil })
        #expect(
            reconnecting.lastErrorStorage == disconnected.lastError.map(SessionSnapshot.LastErrorStorage.error),
            "held once it has no edge")
        #expect(reconnecting.lastError?.failure == cause)
        await harness.stop()
    }

    @Test("a snapshot's last error keeps its value when its transitions are merged, replaced or emptied")
    func lastErrorFollowsTransitions() throws {
        let dropped = TemporaryFailureCause(code: .socketDropped, message: "the socket dropped")
        let failure = SessionFailure.temporary(dropped)
        let error = SessionError(code: .temporaryFailure, message: dropped.message, cause: dropped)
        let edge = SessionTransition(from: .connected, event: .temporaryFailure, to: .disconnected, cause: failure)
        let presentation = Presentation(screen: .client)
        var snapshot = SessionSnapshot(
            state: .disconnected, presentation: presentation, failures: 1, lastError: error, transitions: [edge])
        #expect(snapshot.lastErrorStorage == .lastTransitionCause)
        #expect(snapshot.lastError == error)
        #expect(snapshot.lastError?.failure == failure)

        let older = SessionSnapshot(state: .connected, presentation: presentation, failures: 0, transitions: [])
        let merged = SessionSnapshot.merging(older, snapshot)
        #expect(merged.lastErrorStorage == .lastTransitionCause)
        #expect(merged.lastError?.failure == failure)

        snapshot.transitions = [SessionTransition(from: .disconnected, event: .retry, to: .reconnecting)]
        #expect(snapshot.lastErrorStorage == .error(error))
        #expect(snapshot.lastError?.failure == failure, "kept when the transition that carried it goes")
        snapshot.transitions = [edge]
        #expect(snapshot.lastErrorStorage == .lastTransitionCause, "carried once again")

        let other = SessionError(code: .onboardingFailed, message: "the username is taken")
        snapshot.lastError = other
        #expect(snapshot.lastErrorStorage == .error(other))
        #expect(snapshot.lastError?.code == .onboardingFailed)
    }

    @Test("the session tells its hooks of each CONNECTED with its generation, of leaving it, and of the end, in order")
    func lifecycleHooks() async throws {
        let harness = Harness(polling: false)
        let first = await harness.connected()
        await first.end(.temporary(.socketDropped))
        _ = try #require(await harness.recorder.next(.disconnected))
        let second = await harness.retry()
        await second.ready()
        _ = try #require(await harness.recorder.next(.connected))
        await harness.session.logOut()
        _ = try #require(await harness.recorder.next(.ready))
        #expect(harness.caches.moments == ["connected(1)", "left", "connected(2)", "left", "ended"])
        #expect(harness.caches.discards == 1)
        await harness.stop()
    }

    @Test("the session tells its hooks of every state it entered, in order, none coalesced")
    func enteredHooks() async throws {
        let harness = Harness(polling: false)
        let first = await harness.connected()
        await first.end(.temporary(.socketDropped))
        _ = try #require(await harness.recorder.next(.disconnected))
        // The device goes offline: DISCONNECTED's DEVICE_OFFLINE.
        harness.network.set(.offline)
        _ = try #require(await harness.recorder.next(.offline))
        harness.network.set(.online)
        let second = await harness.connections.nextConnection()
        await second.ready()
        _ = try #require(await harness.recorder.next(.connected))
        await harness.session.logOut()
        _ = try #require(await harness.recorder.next(.ready))
        #expect(
            harness.caches.entered == [
                .connecting, .connected, .disconnected, .offline, .reconnecting, .connected, .dispose, .ready,
            ])
        await harness.stop()
    }

    @Test("a connection that reports its own end is not closed by the session, which reconnects after it")
    func ownEndNotClosed() async throws {
        let harness = Harness(polling: false)
        await harness.session.logIn(credentials, cached: true)
        let connection = await harness.connections.nextConnection()
        await connection.ready()
        await connection.end(.temporary(.socketDropped))
        _ = try #require(await harness.recorder.next(.disconnected))
        #expect(!connection.wasCancelled && connection.isFinished, "it ended by itself")
        await harness.stop()
    }

    @Test("while the session is checked the snapshot says so, and the banner stays \"Connecting\"")
    func confirmingIsVisible() async throws {
        let harness = Harness(polling: false)
        await harness.session.logIn(credentials, cached: true)
        await harness.connections.nextConnection().end(.permanent(.invalidSession))
        let confirming = try #require(await harness.recorder.next { $0.isConfirmingSession })
        #expect(confirming.state == .connecting)
        #expect(confirming.presentation.banner == .connecting)
        // The first check answered "invalid": the second waits ≈2 s.
        let wait = await harness.clock.nextSleep()
        let delay = harness.clock.now.duration(to: wait)
        #expect(delay >= .seconds(1.6) && delay <= .seconds(2.4), "\(delay)")
        harness.clock.advance(to: wait)
        harness.clock.advance(to: await harness.clock.nextSleep())
        let error = try #require(await harness.recorder.next(.error))
        #expect(error.transitions.last?.cause == .permanent(.invalidSession))
        #expect(!error.isConfirmingSession)
        #expect(harness.authenticator.sessionChecks == 3)
        await harness.stop()
    }

    @Test("a check that fails (a 5xx, the network) is a temporary failure too")
    func checkFails() async throws {
        let harness = Harness(polling: false)
        harness.authenticator.answerSessionCheck(.failure(ScriptedError(message: "HTTP 503")))
        await harness.session.logIn(credentials, cached: true)
        await harness.connections.nextConnection().end(.permanent(.invalidSession))
        let disconnected = try #require(await harness.recorder.next(.disconnected))
        #expect(disconnected.transitions.last?.cause?.code == .temporary(.unconfirmedInvalidSession))
        await harness.stop()
    }

    @Test("an external logout of a suspended account: READY says the account is suspended")
    func externalLogoutTailored() async throws {
        let harness = Harness(polling: false)
        harness.authenticator.setStanding(.suspended, for: "user-1")
        let connection = await harness.connected()
        await connection.end(.loggedOut)
        let tailored = try #require(
            await harness.recorder.next { $0.presentation.notice == .accountStanding(.suspended) })
        #expect(tailored.state == .ready)
        #expect(harness.authenticator.standingLookups == ["user-1"])
        #expect(tailored.lastError?.code == .loggedOut)
        await harness.stop()
    }

    @Test("a login refused as Disabled names a banned account once its standing is known")
    func disabledLoginTailored() async throws {
        let harness = Harness(polling: false)
        harness.authenticator.setStanding(.banned, for: "user-7")
        let disabled = LoginFailure(
            code: LoginFailure.Code(rawValue: "Disabled"), message: "This account has been disabled.")
        #expect(await harness.session.reportLoginFailure(disabled, userID: "user-7"))
        let tailored = await harness.recorder.next { $0.presentation.notice == .accountStanding(.banned) }
        #expect(tailored?.presentation.notice?.text == "Your account has been banned.")
        await harness.stop()
    }

    @Test("an observer that does not read holds one snapshot, which carries every transition it missed")
    func slowObserver() async throws {
        let harness = Harness(polling: false)
        let slow = SnapshotRecorder(harness.session.states)
        var connection = await harness.connected()
        for _ in 1...3 {
            await connection.end(.temporary(.socketDropped))
            connection = await harness.retry()
            await connection.ready()
        }
        let caughtUp = try #require(await slow.next { _ in true })
        #expect(caughtUp.state == .connected)
        #expect(
            caughtUp.transitions.map(\.to) == [
                .connecting, .connected, .disconnected, .reconnecting, .connected, .disconnected, .reconnecting,
                .connected, .disconnected, .reconnecting, .connected,
            ])
        #expect(caughtUp.transitions.filter { $0.cause?.code == .temporary(.socketDropped) }.count == 3)
        #expect(caughtUp.droppedTransitions == 0)
        await harness.stop()
    }

    @Test("a snapshot merged for a very slow observer keeps the newest transitions and counts the rest")
    func mergedSnapshotsAreBounded() {
        let transition = SessionTransition(from: .connected, event: .temporaryFailure, to: .disconnected)
        var merged = SessionSnapshot(state: .connected, presentation: Presentation(screen: .client), failures: 0)
        let maximum = SessionSnapshot.maximumPendingTransitions
        for _ in 0..<(maximum + 5) {
            var next = merged
            next.transitions = [transition]
            next.droppedTransitions = 0
            merged = SessionSnapshot.merging(merged, next)
        }
        #expect(merged.transitions.count == maximum)
        #expect(merged.droppedTransitions == 5)
    }

    @Test("a replay that fails past its attempts stays recorded and is played again on the next connection")
    func failedReplayRetriedNextConnection() async throws {
        let harness = Harness(polling: false)
        let lobby = SignificantEvent(.subscribe, "lobby")
        var connection = await harness.connected()
        await harness.session.subscribe(server: "lobby")
        await harness.recorder.next { $0.significantEvents == [lobby] }
        await connection.end(.temporary(.socketDropped))
        harness.connections.failPlays(of: [lobby])
        connection = await harness.retry()
        await connection.ready()
        for backoff in [Duration.seconds(1), .seconds(2)] {
            let retry = harness.clock.now.advanced(by: backoff)
            await harness.clock.waitForSleep(until: retry)
            harness.clock.advance(to: retry)
        }
        let failed = try #require(await harness.recorder.next { $0.replayFailures == [lobby] })
        #expect(failed.significantEvents == [lobby], "never silently forgotten")
        #expect(connection.attempts == [lobby, lobby, lobby])
        harness.connections.failPlays(of: [])
        await connection.end(.temporary(.socketDropped))
        connection = await harness.retry()
        await connection.ready()
        let restored = try #require(await harness.recorder.next { $0.replayFailures.isEmpty })
        #expect(restored.significantEvents == [lobby])
        #expect(connection.played == [lobby])
        await harness.stop()
    }

    @Test("the user's typing is played on the current connection only, and never replayed")
    func typingNotReplayed() async throws {
        let harness = Harness(polling: false)
        let typing = SignificantEvent(.beginTyping, "general")
        var connection = await harness.connected()
        await harness.session.beginTyping(channel: "general")
        let current = connection
        await harness.recorder.next { _ in current.played == [typing] }
        #expect(harness.session.snapshot.significantEvents.isEmpty)
        await connection.end(.temporary(.socketDropped))
        connection = await harness.retry()
        await connection.ready()
        await harness.session.subscribe(server: "lobby")
        let again = connection
        await harness.recorder.next { _ in !again.played.isEmpty }
        #expect(connection.played == [SignificantEvent(.subscribe, "lobby")], "no typing replayed")
        await harness.stop()
    }
}
