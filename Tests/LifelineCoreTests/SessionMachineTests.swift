import LifelineCore
import LifelineTesting
import Testing

@Suite("Every (state, event) pair")
struct SessionMachinePairTests {
    /// The actions each edge must return, for the sample events of `Fixtures.swift` and the machine the
    /// shortest path from READY leaves in the edge's source state (no jitter).
    static let expected: [String: [SessionAction]] = [
        "READY -->|LOGIN_UNCACHED| LOGGING_IN": [.authenticate(credentials, generation: 1)],
        "READY -->|LOGIN_CACHED| CONNECTING": [.connect(credentials, generation: 1)],
        "LOGGING_IN -->|NO_USER| ONBOARDING": [.closeConnection(generation: 1)],
        "LOGGING_IN -->|PERMANENT_FAILURE| ERROR": [
            .closeConnection(generation: 1), .fetchAccountStanding(userID: "user-1", lookup: 1),
        ],
        "LOGGING_IN -->|TEMPORARY_FAILURE| ERROR": [.closeConnection(generation: 1)],
        "ONBOARDING -->|CANCEL| DISPOSE": [.endSession(credentials), .dispose],
        "DISPOSE -->|READY| READY": [],
        "ERROR -->|DISMISS| DISPOSE": [.endSession(credentials), .dispose],
        "LOGGING_IN -->|SOCKET_CONNECTED| CONNECTED": [.replaySignificantEvents(generation: 1)],
        "RECONNECTING -->|SOCKET_CONNECTED| CONNECTED": [.replaySignificantEvents(generation: 2)],
        "CONNECTING -->|SOCKET_CONNECTED| CONNECTED": [.replaySignificantEvents(generation: 1)],
        "ONBOARDING -->|USER_CREATED| LOGGING_IN": [.authenticate(credentials, generation: 2)],
        "CONNECTED -->|TEMPORARY_FAILURE| DISCONNECTED": [
            .closeConnection(generation: 1), retryTimer(id: 1, failures: 1, delay: .seconds(1)),
        ],
        "DISCONNECTED -->|RETRY| RECONNECTING": [
            .cancelTimer(id: 1), .invalidateCaches, .connect(credentials, generation: 2),
        ],
        "DISCONNECTED -->|DEVICE_OFFLINE| OFFLINE": [.cancelTimer(id: 1)],
        "RECONNECTING -->|TEMPORARY_FAILURE| DISCONNECTED": [
            .closeConnection(generation: 2), retryTimer(id: 2, failures: 2, delay: .seconds(3)),
        ],
        "CONNECTING -->|TEMPORARY_FAILURE| DISCONNECTED": [
            .closeConnection(generation: 1), retryTimer(id: 1, failures: 1, delay: .seconds(1)),
        ],
        "CONNECTING -->|PERMANENT_FAILURE| ERROR": [
            .closeConnection(generation: 1), .fetchAccountStanding(userID: "user-1", lookup: 1),
        ],
        "RECONNECTING -->|PERMANENT_FAILURE| ERROR": [
            .closeConnection(generation: 2), .fetchAccountStanding(userID: "user-1", lookup: 2),
        ],
        "OFFLINE -->|DEVICE_ONLINE| RECONNECTING": [.invalidateCaches, .connect(credentials, generation: 2)],
        "CONNECTING -->|LOGOUT| DISPOSE": [.closeConnection(generation: 1), .endSession(credentials), .dispose],
        "CONNECTED -->|LOGOUT| DISPOSE": [.closeConnection(generation: 1), .endSession(credentials), .dispose],
        "DISCONNECTED -->|LOGOUT| DISPOSE": [.cancelTimer(id: 1), .endSession(credentials), .dispose],
        "RECONNECTING -->|LOGOUT| DISPOSE": [.closeConnection(generation: 2), .endSession(credentials), .dispose],
        "OFFLINE -->|LOGOUT| DISPOSE": [.endSession(credentials), .dispose],
        "DISCONNECTED -->|RECONNECT_NOW| RECONNECTING": [
            .cancelTimer(id: 1), .invalidateCaches, .connect(credentials, generation: 2),
        ],
        "OFFLINE -->|RECONNECT_NOW| RECONNECTING": [.invalidateCaches, .connect(credentials, generation: 2)],
        "DISCONNECTED -->|DEVICE_WOKE| RECONNECTING": [
            .cancelTimer(id: 1), .invalidateCaches, .connect(credentials, generation: 2),
        ],
    ]

    /// What DEVICE_WOKE does in the states where the table has no edge for it: never a rejection. CONNECTED
    /// checks its socket (the check and its deadline, 3 s by default); the others ignore it.
    static let wokeWithoutEdge: [SessionState: SessionMachine.Output] = [
        .connected: .updated(actions: [
            .checkSocket(generation: 1, check: 1),
            .armTimer(SessionTimer(id: 2, purpose: .socketCheck, delay: .seconds(3))),
        ])
    ]

    static let pairs: [(SessionState, SessionEvent.Kind)] = SessionState.allCases.flatMap { state in
        SessionEvent.Kind.allCases.map { (state, $0) }
    }

    @Test("the expectations cover exactly the table's edges")
    func expectationsCoverTheTable() {
        #expect(Set(Self.expected.keys) == Set(SessionTransitionTable.edges.map(\.description)))
    }

    @Test("an event takes the table's edge with its exit and entry actions, or is rejected", arguments: pairs)
    func pair(state: SessionState, kind: SessionEvent.Kind) {
        let story = Story(in: state)
        let rejectedBefore = story.machine.rejectedEvents
        let output = story.send(sample(kind))
        if let edge = SessionTransitionTable.edge(from: state, on: kind) {
            #expect(
                output.transitions.first
                    == SessionTransition(
                        from: edge.from, event: edge.event, to: edge.to, failures: story.machine.failures,
                        cause: sample(kind).failure))
            #expect(output.actions == Self.expected[edge.description], "\(edge)")
            #expect(story.machine.state == edge.to)
            #expect(story.machine.rejectedEvents == rejectedBefore)
        } else if kind == .deviceWoke {
            #expect(output == Self.wokeWithoutEdge[state, default: .ignored], "DEVICE_WOKE in \(state)")
            #expect(story.machine.state == state)
            #expect(story.machine.rejectedEvents == rejectedBefore, "a wake is never an impossible order")
        } else {
            #expect(output == .rejected(kind, in: state))
            #expect(story.machine.state == state)
            #expect(story.machine.rejectedEvents == rejectedBefore + 1)
        }
    }
}

@Suite("One story per node of the specification")
struct SessionMachineStoryTests {
    @Test("READY shows the login form; a cached login connects at once, a fresh one authenticates")
    func ready() {
        let story = Story(in: .ready)
        #expect(story.machine.presentation == Presentation(screen: .login))
        #expect(story.machine.credentials == nil)
        #expect(story.send(.socketConnected) == .rejected(.socketConnected, in: .ready))
        #expect(story.send(.loginCached(credentials)).actions == [.connect(credentials, generation: 1)])
        #expect(story.machine.liveGeneration == 1)
    }

    @Test("LOGGING_IN shows loading and authenticates; any failure there goes to ERROR")
    func loggingIn() {
        let story = Story(in: .ready)
        #expect(story.send(.loginUncached(credentials)).actions == [.authenticate(credentials, generation: 1)])
        #expect(story.machine.presentation == Presentation(screen: .loading))
        let cause = TemporaryFailureCause(code: .requestFailed, message: "onboarding check")
        #expect(story.send(.temporaryFailure(cause)).actions == [.closeConnection(generation: 1)])
        #expect(story.machine.state == .error)
        #expect(story.machine.presentation.screen == .permanentError(PermanentError(failure: .temporary(cause))))
        #expect(story.machine.failures == 0, "a failure while logging in is not a connection failure")
    }

    @Test("ONBOARDING shows the username selection; USER_CREATED authenticates again with a new generation")
    func onboarding() {
        let story = Story(in: .onboarding)
        #expect(story.machine.presentation == Presentation(screen: .usernameSelection))
        #expect(story.machine.liveGeneration == nil)
        #expect(story.send(.userCreated).actions == [.authenticate(credentials, generation: 2)])
        #expect(story.send(.socketConnected).actions == [.replaySignificantEvents(generation: 2)])
        #expect(story.machine.state == .connected)
    }

    @Test("ERROR after an invalid session looks the account up and tails the message to its standing")
    func error() {
        let story = Story(in: .connecting)
        #expect(
            story.send(.permanentFailure(.invalidSession)).actions
                == [.closeConnection(generation: 1), .fetchAccountStanding(userID: "user-1", lookup: 1)])
        guard case .permanentError(let checking) = story.machine.presentation.screen else {
            Issue.record("ERROR shows \(story.machine.presentation.screen)")
            return
        }
        #expect(checking.isCheckingAccount)
        #expect(story.standing(.suspended))
        guard case .permanentError(let tailored) = story.machine.presentation.screen else { return }
        #expect(tailored.standing == .suspended)
        #expect(tailored.reason == "suspended")
        #expect(tailored.message == "Your account has been suspended.")
        #expect(!story.standing(.banned), "a second, late answer changes nothing")
        #expect(story.send(.dismiss).actions == [.endSession(credentials), .dispose])
    }

    @Test("CONNECTED has no PERMANENT_FAILURE edge: it is rejected, and the runtime reports the socket's end instead")
    func connectedRejectsPermanentFailure() {
        let story = Story(in: .connected)
        #expect(story.send(.permanentFailure(.invalidSession)) == .rejected(.permanentFailure, in: .connected))
        #expect(story.machine.liveGeneration == 1)
    }

    @Test("ERROR without a user id does not look anything up, and a failed lookup leaves the error untailored")
    func errorWithoutUser() {
        let story = Story()
        story.send(.loginCached(SessionCredentials(token: "t")))
        #expect(story.send(.permanentFailure(.invalidSession)).actions == [.closeConnection(generation: 1)])
        #expect(!story.standing(nil))
        guard case .permanentError(let error) = story.machine.presentation.screen else { return }
        #expect(error.standing == nil && !error.isCheckingAccount)
        #expect(error.message == "Your session is no longer valid. Please log in again.")
    }

    @Test("DISPOSE shows loading, disposes, and READY after an external logout says so once")
    func dispose() {
        let story = Story(in: .connected)
        #expect(
            story.send(.logout(external: true)).actions
                == [.closeConnection(generation: 1), .fetchAccountStanding(userID: "user-1", lookup: 1), .dispose],
            "an external logout looks the account up and does not end the session again")
        #expect(story.machine.presentation == Presentation(screen: .loading))
        #expect(story.send(.ready).actions == [])
        #expect(story.machine.presentation == Presentation(screen: .login, notice: .loggedOut))
        story.send(.loginCached(credentials))
        story.send(.logout(external: false))
        story.send(.ready)
        #expect(story.machine.presentation.notice == nil, "a user's own logout shows no notice")
    }

    @Test("CONNECTING shows the client with the banner \"Connecting\" and connects the socket")
    func connecting() {
        let story = Story(in: .connecting)
        #expect(story.machine.presentation == Presentation(screen: .client, banner: .connecting))
        #expect(story.machine.presentation.banner?.text == "Connecting")
        #expect(story.machine.liveGeneration == 1)
    }

    @Test("CONNECTED shows the client without a banner, resets the failures and replays the significant events")
    func connected() {
        let story = Story(in: .reconnecting)
        story.send(.temporaryFailure(.socketDropped))
        story.send(.retry)
        #expect(story.machine.failures == 2)
        #expect(story.send(.socketConnected).actions == [.replaySignificantEvents(generation: 3)])
        #expect(story.machine.failures == 0)
        #expect(story.machine.presentation == Presentation(screen: .client))
    }

    @Test("DISCONNECTED counts the failure, arms the retry with the formula's delay, and leaving cancels it")
    func disconnected() {
        let story = Story(in: .connected)
        #expect(
            story.send(.temporaryFailure(.socketDropped)).actions
                == [.closeConnection(generation: 1), retryTimer(id: 1, failures: 1, delay: .seconds(1))])
        #expect(story.machine.failures == 1)
        #expect(story.machine.isRetryTimerArmed)
        #expect(story.machine.retryTimerID == 1, "the armed retry timer's id")
        #expect(
            story.machine.presentation == Presentation(screen: .client, banner: .disconnected, retryDelay: .seconds(1)))
        story.send(.retry)
        #expect(!story.machine.isRetryTimerArmed)
        #expect(story.machine.retryTimerID == nil)
        #expect(
            story.send(.temporaryFailure(.init(code: .connectFailed, message: "connectFailed"))).actions
                == [.closeConnection(generation: 2), retryTimer(id: 2, failures: 2, delay: .seconds(3))])
        #expect(story.send(.logout(external: false)).actions.first == .cancelTimer(id: 2))
    }

    @Test("DISCONNECTED with the device offline goes straight on to OFFLINE and arms no timer")
    func disconnectedWhileOffline() {
        let story = Story(in: .connected)
        #expect(story.network(isOnline: false) == .updated(actions: []), "CONNECTED only records it")
        let output = story.send(.temporaryFailure(.init(code: .heartbeatTimeout, message: "heartbeatTimeout")))
        #expect(
            output.transitions == [
                SessionTransition(
                    from: .connected, event: .temporaryFailure, to: .disconnected, failures: 1,
                    cause: .temporary(.init(code: .heartbeatTimeout, message: "heartbeatTimeout"))),
                SessionTransition(from: .disconnected, event: .deviceOffline, to: .offline, failures: 1),
            ])
        #expect(output.actions == [.closeConnection(generation: 1)])
        #expect(story.machine.state == .offline)
        #expect(!story.machine.isRetryTimerArmed)
    }

    @Test("RECONNECTING shows its banner, invalidates the caches and connects a new generation")
    func reconnecting() {
        let story = Story(in: .disconnected)
        #expect(
            story.send(.retry).actions
                == [.cancelTimer(id: 1), .invalidateCaches, .connect(credentials, generation: 2)])
        #expect(story.machine.presentation == Presentation(screen: .client, banner: .reconnecting))
    }

    @Test("OFFLINE shows \"Device offline\" and leaves only when the device is online again, or the user asks")
    func offline() {
        let story = Story(in: .offline)
        #expect(story.machine.presentation == Presentation(screen: .client, banner: .deviceOffline))
        #expect(story.send(.retry) == .rejected(.retry, in: .offline), "a late timer cannot leave")
        #expect(story.network(isOnline: false) == .ignored, "already offline")
        let back = story.network(isOnline: true)
        #expect(back.actions == [.invalidateCaches, .connect(credentials, generation: 2)])
        #expect(story.machine.state == .reconnecting)
    }

    @Test("health polling starts at the third failure, keeps its alert, and stops on CONNECTED")
    func healthPolling() {
        let story = Story(in: .connected)
        #expect(!story.alert(OutageAlert(text: "early")), "no alert before polling")
        for failures in 1...3 {
            let actions = story.send(.temporaryFailure(.socketDropped)).actions
            #expect(actions.contains(.startHealthPolling) == (failures == 3))
            if failures < 3 { story.send(.retry) }
        }
        #expect(story.machine.isPollingHealth)
        #expect(story.alert(OutageAlert(text: "Stoat is down")))
        #expect(story.machine.presentation.outageAlert?.text == "Stoat is down")
        let nextPoll = story.lastArmedTimer
        story.send(.retry)
        #expect(story.send(.temporaryFailure(.socketDropped)).actions.contains(.startHealthPolling) == false)
        story.send(.retry)
        #expect(
            story.send(.socketConnected).actions == [
                .cancelTimer(id: nextPoll), .stopHealthPolling, .replaySignificantEvents(generation: 5),
            ])
        #expect(story.machine.presentation.outageAlert == nil)
        #expect(!story.alert(OutageAlert(text: "late")))
    }

    @Test("a failed login is shown on the login screen only, and cleared by the next login")
    func loginFailure() {
        let story = Story(in: .ready)
        let blocked = LoginFailure(
            code: LoginFailure.Code(rawValue: "BlockedByShield"), message: "Blocked",
            supportURL: "https://support.example/blocked")
        #expect(story.loginFailed(blocked))
        #expect(story.machine.presentation.notice == .loginFailed(blocked))
        story.send(.loginCached(credentials))
        #expect(!story.loginFailed(blocked))
        #expect(story.machine.presentation.notice == nil)
    }
}
