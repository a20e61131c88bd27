import LifelineCore
import LifelineTesting
import Testing

/// Checks without jitter, so that stories can state exact delays: 3 checks, 2 s then 6 s apart.
let exactChecks = try! SessionCheckPolicy(
    checks: 3, backoff: try! RetryPolicy(unit: .seconds(2), ceiling: .seconds(60), jitter: 0))

@Suite("The machine decides what a connection's end means")
struct ConnectionEndTests {
    @Test(
        "every way a live connection ends takes an edge of the table, or starts the confirmation of an InvalidSession",
        arguments: [SessionState.loggingIn, .connecting, .connected, .reconnecting])
    func everyEndTakesAnEdge(state: SessionState) {
        let ends: [SessionFailure] = [
            .temporary(.socketDropped), .permanent(.invalidSession), .loggedOut,
            .permanent(PermanentFailureReason(code: .authenticationFailed, message: "InvalidToken")),
        ]
        for end in ends {
            let story = Story(in: state, sessionCheck: exactChecks)
            let output = story.ended(end)
            if case .updated(let actions) = output {
                #expect(state != .connected && end == .permanent(.invalidSession), "\(end) in \(state)")
                #expect(actions == [.checkSession(credentials, check: 1 + (state == .reconnecting ? 1 : 0))])
                #expect(
                    !actions.contains(.closeConnection(generation: story.machine.generation)),
                    "the connection ended by itself: nothing to close")
                #expect(story.machine.isConfirmingSession)
            } else {
                let transition = output.transitions.first
                #expect(transition.map { SessionTransitionTable.target(from: $0.from, on: $0.event) == $0.to } == true)
                #expect(transition?.from == state, "\(end) in \(state)")
            }
        }
    }

    @Test("a report about a superseded connection is ignored, whatever it says")
    func staleGeneration() {
        let story = Story(in: .reconnecting)
        for end in [SessionFailure.temporary(.socketDropped), .permanent(.invalidSession), .loggedOut] {
            #expect(story.ended(end, generation: 1) == .ignored)
        }
        #expect(story.machine.connectionReady(generation: 1, using: &story.random) == .ignored)
        #expect(story.machine.onboardingNeeded(generation: 1, using: &story.random) == .ignored)
        #expect(story.machine.state == .reconnecting && story.machine.liveGeneration == 2)
    }

    @Test("a connection that reported its own end is not closed; one the lifecycle ends is")
    func ownEndNotClosed() {
        for state in [SessionState.loggingIn, .connecting, .connected, .reconnecting] {
            let story = Story(in: state)
            let generation = story.machine.liveGeneration ?? 0
            let ended = story.ended(.temporary(.socketDropped))
            #expect(!ended.transitions.isEmpty, "\(state)")
            #expect(!ended.actions.contains(.closeConnection(generation: generation)), "\(state)")
            let failed = Story(in: state).send(.temporaryFailure(.socketDropped))
            #expect(failed.actions.contains(.closeConnection(generation: generation)), "\(state)")
        }
    }

    @Test("a permanent end while CONNECTED is the socket dropping, with the server's reason in its message")
    func permanentWhileConnected() {
        let story = Story(in: .connected)
        let output = story.ended(.permanent(.invalidSession))
        #expect(output.transitions.first?.to == .disconnected)
        #expect(output.transitions.first?.cause?.code == .temporary(.socketDropped))
    }

    @Test("the server's logout while LOGGING_IN is PERMANENT_FAILURE(loggedOut): ERROR, tailored by a lookup")
    func logoutWhileLoggingIn() {
        let story = Story(in: .loggingIn)
        let output = story.ended(.loggedOut)
        #expect(output.transitions.first?.to == .error)
        #expect(output.transitions.first?.cause?.code == .permanent(.loggedOut))
        #expect(
            output.actions == [.fetchAccountStanding(userID: "user-1", lookup: 1)],
            "the connection ended by itself: nothing to close")
    }
}

@Suite("InvalidSession is confirmed before it is believed")
struct SessionConfirmationTests {
    @Test("InvalidSession while CONNECTING: closed, checked three times 2 s and 6 s apart, then PERMANENT_FAILURE")
    func confirmedInvalid() {
        let story = Story(in: .connecting, sessionCheck: exactChecks)
        let presentation = story.machine.presentation
        #expect(
            story.ended(.permanent(.invalidSession)) == .updated(actions: [.checkSession(credentials, check: 1)]),
            "the connection ended by itself: checked, not closed")
        #expect(story.machine.state == .connecting && story.machine.isConfirmingSession)
        #expect(story.machine.presentation == presentation, "the interface shows what it showed")
        #expect(story.machine.liveGeneration == nil, "no connection while confirming")
        #expect(story.send(.socketConnected) == .rejected(.socketConnected, in: .connecting))
        #expect(story.checked(.success(.invalid), check: 9) == .ignored, "an unknown check")
        #expect(
            story.checked(.success(.invalid), check: 1)
                == .updated(actions: [
                    .armTimer(SessionTimer(id: 2, purpose: .sessionCheck(answers: 1), delay: .seconds(2)))
                ]))
        #expect(story.fired(1) == .ignored, "not a timer")
        #expect(story.fired(2) == .updated(actions: [.checkSession(credentials, check: 3)]))
        #expect(
            story.checked(.success(.invalid), check: 3)
                == .updated(actions: [
                    .armTimer(SessionTimer(id: 4, purpose: .sessionCheck(answers: 2), delay: .seconds(6)))
                ]))
        #expect(story.fired(4) == .updated(actions: [.checkSession(credentials, check: 5)]))
        let output = story.checked(.success(.invalid), check: 5)
        #expect(output.transitions.map(\.description) == ["CONNECTING -->|PERMANENT_FAILURE| ERROR (failures: 0)"])
        #expect(output.transitions.first?.cause == .permanent(.invalidSession))
        #expect(output.actions == [.fetchAccountStanding(userID: "user-1", lookup: 6)])
        #expect(!story.machine.isConfirmingSession)
    }

    @Test(
        "a valid answer, or a check that finds no answer, is TEMPORARY_FAILURE(unconfirmedInvalidSession)",
        arguments: [SessionState.connecting, .reconnecting, .loggingIn], [true, false])
    func unconfirmed(state: SessionState, valid: Bool) {
        let story = Story(in: state, sessionCheck: exactChecks)
        story.ended(.permanent(.invalidSession))
        let check = story.machine.generation == 1 ? UInt64(1) : UInt64(2)
        let answer: Result<SessionCheck, any Error> =
            valid ? .success(.valid) : .failure(ScriptedError(message: "HTTP 503"))
        let output = story.checked(answer, check: check)
        #expect(output.transitions.first?.event == .temporaryFailure)
        #expect(output.transitions.first?.cause?.code == .temporary(.unconfirmedInvalidSession))
        #expect(story.machine.state == (state == .loggingIn ? .error : .disconnected))
        #expect(!output.actions.contains { if case .closeConnection = $0 { true } else { false } }, "already closed")
    }

    @Test("leaving while a check's timer waits cancels the timer; its late firing is ignored")
    func logoutWhileWaiting() {
        let story = Story(in: .reconnecting, sessionCheck: exactChecks)
        story.ended(.permanent(.invalidSession))
        story.checked(.success(.invalid), check: 2)
        let output = story.send(.logout(external: false))
        #expect(output.actions == [.cancelTimer(id: 3), .endSession(credentials), .dispose])
        #expect(story.fired(3) == .ignored)
    }

    @Test("with no check, InvalidSession is PERMANENT_FAILURE at once; with a single one, one answer decides")
    func policies() {
        let none = Story(in: .connecting, sessionCheck: .none)
        #expect(none.ended(.permanent(.invalidSession)).transitions.first?.to == .error)
        let single = Story(in: .connecting, sessionCheck: .single)
        single.ended(.permanent(.invalidSession))
        #expect(single.checked(.success(.invalid), check: 1).transitions.first?.to == .error)
    }

    @Test("other permanent ends are not confirmed: only InvalidSession can be a failing database")
    func otherPermanentEnds() {
        let story = Story(in: .connecting, sessionCheck: exactChecks)
        let reason = PermanentFailureReason(code: .authenticationFailed, message: "InvalidToken")
        #expect(story.ended(.permanent(reason)).transitions.first?.to == .error)
    }
}

@Suite("Timers as data")
struct SessionTimerTests {
    @Test("the retry timer fires by its id; a stale id, or a firing after it was cancelled, is ignored")
    func retryTimerByID() {
        let story = Story(in: .connected)
        #expect(
            story.send(.temporaryFailure(.socketDropped)).actions.last
                == retryTimer(id: 1, failures: 1, delay: .seconds(1)))
        #expect(story.fired(7) == .ignored)
        let output = story.fired(1)
        #expect(output.transitions.first?.event == .retry)
        #expect(story.machine.state == .reconnecting)
        #expect(story.fired(1) == .ignored, "fired twice")
    }

    @Test("a change of network that changes nothing is ignored; one that is only recorded updates nothing else")
    func networkChanges() {
        let story = Story(in: .connected)
        #expect(story.network(isOnline: true) == .ignored)
        #expect(story.network(isOnline: false) == .updated(actions: []))
        #expect(!story.machine.isDeviceOnline)
    }
}

@Suite("Suspension and logout: the notice is tailored")
struct SuspensionNoticeTests {
    @Test("an external logout looks the account up; a suspension found while disposing is what READY says")
    func externalLogoutSuspended() {
        let story = Story(in: .connected)
        story.send(.logout(external: true))
        #expect(!story.standing(.suspended), "DISPOSE shows loading")
        story.send(.ready)
        #expect(story.machine.presentation.notice == .accountStanding(.suspended))
        #expect(story.machine.presentation.notice?.text == "Your account has been suspended.")
    }

    @Test("an answer after READY tailors the notice; good standing keeps \"You were logged out\"")
    func externalLogoutAnswerAfterReady() {
        for (standing, notice) in [(AccountStanding.banned, Notice.accountStanding(.banned)), (.loggedOut, .loggedOut)]
        {
            let story = Story(in: .connected)
            story.send(.logout(external: true))
            story.send(.ready)
            #expect(story.machine.presentation.notice == .loggedOut)
            #expect(story.standing(standing) == (standing != .loggedOut))
            #expect(story.machine.presentation.notice == notice)
        }
    }

    @Test("an answer after a new login is stale: it tailors nothing")
    func staleLookup() {
        let story = Story(in: .connected)
        story.send(.logout(external: true))
        story.send(.ready)
        story.send(.loginCached(credentials))
        #expect(!story.standing(.deleted))
        #expect(story.machine.presentation.notice == nil)
    }

    @Test("a login refused as Disabled looks the account up: suspended, or plainly disabled")
    func disabledLogin() {
        let disabled = LoginFailure(
            code: LoginFailure.Code(rawValue: "Disabled"), message: "This account has been disabled.")
        for (standing, notice) in [
            (AccountStanding.suspended, Notice.accountStanding(.suspended)), (.loggedOut, .loginFailed(disabled)),
        ] {
            let story = Story(in: .ready)
            #expect(
                story.machine.loginFailed(disabled, userID: "user-9")
                    == .updated(actions: [
                        .fetchAccountStanding(userID: "user-9", lookup: 1)
                    ]))
            story.lookup = 1
            #expect(story.machine.presentation.notice == .loginFailed(disabled))
            story.standing(standing)
            #expect(story.machine.presentation.notice == notice)
        }
    }

    @Test("a refused login without a user id looks nothing up")
    func refusedWithoutUser() {
        let story = Story(in: .ready)
        let wrong = LoginFailure(code: LoginFailure.Code(rawValue: "InvalidCredentials"), message: "wrong")
        #expect(story.machine.loginFailed(wrong) == .updated(actions: []))
    }
}
