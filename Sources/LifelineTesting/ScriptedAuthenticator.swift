public import Lifeline
public import LifelineCore
import Synchronization

/// An `Authenticator` whose answers a test sets, and which records what it was asked.
public final class ScriptedAuthenticator: Authenticator {
    private struct State {
        var onboarding: Result<Bool, any Error> = .success(false)
        var completion: Result<Void, any Error> = .success(())
        var sessionCheck: Result<SessionCheck, any Error> = .success(.invalid)
        var sessionChecks = 0
        var standings: [String: AccountStanding] = [:]
        var onboardingChecks = 0
        var usernames: [String] = []
        var standingLookups: [String] = []
        var endedSessions: [SessionCredentials] = []
    }

    private let state = Mutex(State())

    /// Creates an authenticator: no onboarding needed, onboarding completes, no standing known.
    public init() {}

    /// Sets the answer to the onboarding check: whether it is needed, or the error it throws.
    public func answerOnboarding(_ result: Result<Bool, any Error>) { state.withLock { $0.onboarding = result } }

    /// Sets the answer to every later check of a session (by default `.invalid`: the session is gone).
    public func answerSessionCheck(_ result: Result<SessionCheck, any Error>) {
        state.withLock { $0.sessionCheck = result }
    }

    /// Sets the answer to completing onboarding.
    public func answerCompletion(_ result: Result<Void, any Error>) { state.withLock { $0.completion = result } }

    /// Sets the standing of an account; unknown accounts fail the lookup.
    public func setStanding(_ standing: AccountStanding, for userID: String) {
        state.withLock { $0.standings[userID] = standing }
    }

    /// How many checks of a session were made.
    public var sessionChecks: Int { state.withLock { $0.sessionChecks } }
    /// How many onboarding checks were made.
    public var onboardingChecks: Int { state.withLock { $0.onboardingChecks } }
    /// The usernames onboarding was completed with.
    public var usernames: [String] { state.withLock { $0.usernames } }
    /// The user ids whose standing was looked up.
    public var standingLookups: [String] { state.withLock { $0.standingLookups } }
    /// The sessions ended on the server.
    public var endedSessions: [SessionCredentials] { state.withLock { $0.endedSessions } }

    /// Answers the onboarding check as scripted.
    public func needsOnboarding(_ credentials: SessionCredentials) async throws -> Bool {
        let result = state.withLock { state in
            state.onboardingChecks += 1
            return state.onboarding
        }
        return try result.get()
    }

    /// Answers a check of the session as scripted.
    public func checkSession(_ credentials: SessionCredentials) async throws -> SessionCheck {
        let result = state.withLock { state in
            state.sessionChecks += 1
            return state.sessionCheck
        }
        return try result.get()
    }

    /// Completes onboarding as scripted; once it succeeds, the onboarding check answers `false`.
    public func completeOnboarding(_ credentials: SessionCredentials, username: String) async throws {
        let result = state.withLock { state in
            state.usernames.append(username)
            if case .success = state.completion { state.onboarding = .success(false) }
            return state.completion
        }
        try result.get()
    }

    /// Answers the account's standing, or throws when none was set.
    public func accountStanding(userID: String) async throws -> AccountStanding {
        let standing = state.withLock { state in
            state.standingLookups.append(userID)
            return state.standings[userID]
        }
        guard let standing else { throw ScriptedError(message: "no standing scripted for this user") }
        return standing
    }

    /// Records that the session was ended.
    public func endSession(_ credentials: SessionCredentials) async throws {
        state.withLock { $0.endedSessions.append(credentials) }
    }
}
