public import Lifeline
public import LifelineCore

/// The `Authenticator` of a Stoat session, over Stoat's REST API: the onboarding check and its
/// completion, the check of a session the socket called invalid, the account's standing from its flags,
/// and logging out on the server.
///
/// ```swift
/// let api = StoatAPI(baseURL: apiURL, logger: logger)
/// let session = Session(…, authenticator: StoatAuthenticator(api: api), …)
/// ```
public struct StoatAuthenticator: Authenticator {
    /// The REST client the requests go through.
    public let api: StoatAPI

    /// Creates an authenticator.
    ///
    /// - Parameter api: The REST client to send the requests with.
    public init(api: StoatAPI) {
        self.api = api
    }

    /// Whether the account still has to pick a username (`GET /onboard/hello`).
    ///
    /// - Throws: `SessionFailure.permanent(_:)` with `PermanentFailureReason.Code.invalidSession`
    ///   when the server no longer accepts the session (`InvalidSession`, `NotAuthenticated`, or any 401);
    ///   `SessionFailure.temporary(_:)` with `TemporaryFailureCause.Code.requestFailed`
    ///   for every other failure (the network, a timeout, a server error, an unreadable answer);
    ///   `CancellationError` when the calling task was cancelled.
    public func needsOnboarding(_ credentials: SessionCredentials) async throws -> Bool {
        do throws(StoatAPIError) {
            return try await api.onboardingHello(credentials)
        } catch {
            throw Self.connectionEnd(for: error)
        }
    }

    /// Whether the server still accepts the session (`GET /onboard/hello`, which needs a session and
    /// changes nothing), to confirm a socket's `InvalidSession`.
    ///
    /// - Returns: `SessionCheck.invalid` for a 401 (`InvalidSession`, `NotAuthenticated`, or
    ///   a 401 without a kind); `SessionCheck.valid` for any answer the session got through
    ///   with.
    /// - Throws: ``StoatAPIError`` for every other failure — a server error, a timeout, the network, an
    ///   unreadable answer: no definite answer; `CancellationError` when the calling task was cancelled.
    public func checkSession(_ credentials: SessionCredentials) async throws -> SessionCheck {
        do throws(StoatAPIError) {
            _ = try await api.onboardingHello(credentials)
            return .valid
        } catch {
            if error.code == .cancelled { throw CancellationError() }
            if Self.isSessionRefused(error) { return .invalid }
            throw error
        }
    }

    /// Picks the account's username (`POST /onboard/complete`).
    ///
    /// - Throws: ``StoatAPIError`` as the server refused it (``StoatAPIErrorCode/usernameTaken``,
    ///   ``StoatAPIErrorCode/failedValidation``, …); its description is safe to show and log.
    public func completeOnboarding(_ credentials: SessionCredentials, username: String) async throws {
        _ = try await api.completeOnboarding(credentials, username: username)
    }

    /// The account's standing from its flags (`GET /users/{id}/flags`, no session needed); see
    /// ``standing(forFlags:)`` for the mapping.
    ///
    /// - Throws: ``StoatAPIError`` when the lookup fails.
    public func accountStanding(userID: String) async throws -> AccountStanding {
        Self.standing(forFlags: try await api.flags(userID: userID))
    }

    /// Logs the session out on the server (`POST /auth/session/logout`).
    ///
    /// A session the server no longer knows (`InvalidSession`) has already ended, which is what was asked
    /// for, so that is not an error.
    ///
    /// - Throws: ``StoatAPIError`` for any other failure.
    public func endSession(_ credentials: SessionCredentials) async throws {
        do throws(StoatAPIError) {
            try await api.logout(credentials)
        } catch  where error.code == .invalidSession {
            return
        }
    }

    /// The standing Stoat's account flags describe.
    ///
    /// An account may carry several flags; the most severe one names the standing, in this order:
    ///
    /// | flag | bit | standing |
    /// |---|---|---|
    /// | banned | 4 | `AccountStanding.banned` |
    /// | removed as spam | 8 | `AccountStanding.removedAsSpam` |
    /// | deleted | 2 | `AccountStanding.deleted` |
    /// | suspended | 1 | `AccountStanding.suspended` |
    /// | none of these | — | `AccountStanding.loggedOut` |
    ///
    /// A ban is final and explains everything else; removal as spam is a ban for a specific cause; a deleted
    /// account cannot come back, while a suspension ends. Bits Stoat may add later are ignored, so flags
    /// without any of the four mean the account is fine and the session was simply logged out. (A
    /// *disabled* account also has flags 0: the lifecycle only learns it from a later login answering
    /// ``LoginResult/disabled(userID:)``.)
    ///
    /// - Parameter flags: The value of `GET /users/{id}/flags`.
    public static func standing(forFlags flags: Int) -> AccountStanding {
        if flags & 4 != 0 { return .banned }
        if flags & 8 != 0 { return .removedAsSpam }
        if flags & 2 != 0 { return .deleted }
        if flags & 1 != 0 { return .suspended }
        return .loggedOut
    }

    /// Whether the server refused the session itself: a 401, whatever its kind. (Stoat's session guard
    /// answers 401 also when its database fails, which is why the lifecycle confirms it.)
    static func isSessionRefused(_ error: StoatAPIError) -> Bool {
        error.code == .invalidSession || error.code == .notAuthenticated || error.status == 401
    }

    /// The lifecycle's reading of a failed request made while logging in.
    static func connectionEnd(for error: StoatAPIError) -> any Error {
        if error.code == .cancelled { return CancellationError() }
        if isSessionRefused(error) {
            return SessionFailure.permanent(
                PermanentFailureReason(code: .invalidSession, message: error.kind ?? "\(error.code)", cause: error))
        }
        let message =
            error.status.map { "onboarding check: \(error.code) (HTTP \($0))" } ?? "onboarding check: \(error.code)"
        return SessionFailure.temporary(TemporaryFailureCause(code: .requestFailed, message: message, cause: error))
    }
}
