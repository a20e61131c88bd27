public import LifelineCore
import Logging

/// The requests around a session that are not the socket: the onboarding check and its completion, the
/// account's standing after a permanent failure, and ending the session on the server.
///
/// `LifelineStoat` implements it over Stoat's REST API. Credentials are exchanged (email and password,
/// MFA) at the login interface before the lifecycle starts, so that is not here.
public protocol Authenticator: Sendable {
    /// Whether the session's account still has to pick a username (NO_USER).
    ///
    /// - Throws: `SessionFailure` for a failure the lifecycle should act on (an invalid session is
    ///   `SessionFailure.permanent(_:)`); any other error counts as a temporary request failure.
    func needsOnboarding(_ credentials: SessionCredentials) async throws -> Bool

    /// Checks whether the server still accepts the session, to confirm an `InvalidSession` before the
    /// lifecycle believes it (`LifelineCore`'s `SessionCheckPolicy`). For Stoat, `GET /onboard/hello`.
    ///
    /// Return `SessionCheck.invalid` only for the server's definite refusal of the session
    /// (Stoat: a 401); `SessionCheck.valid` when the server accepted it.
    ///
    /// - Throws: Any failure that is not a definite answer — a server error, a timeout, the network; the
    ///   lifecycle then treats the `InvalidSession` as a temporary failure and retries.
    func checkSession(_ credentials: SessionCredentials) async throws -> SessionCheck

    /// Completes onboarding with a username.
    ///
    /// - Throws: The server's refusal (for example a taken username), which the session passes to the UI.
    func completeOnboarding(_ credentials: SessionCredentials, username: String) async throws

    /// The standing of an account after its session was found invalid, the server logged it out, or a
    /// login was refused as disabled (no session is needed for this).
    ///
    /// - Throws: When the lookup fails; the permanent error then stays untailored.
    func accountStanding(userID: String) async throws -> AccountStanding

    /// Ends the session on the server after the user logged out. Best effort: errors are logged and
    /// otherwise ignored, because the user is logged out locally either way.
    func endSession(_ credentials: SessionCredentials) async throws
}

extension Authenticator {
    /// ``endSession(_:)`` at the user's logout: a failure is logged (never the token), and changes nothing.
    func endSession(_ credentials: SessionCredentials, logger: Logger) async {
        do {
            try await endSession(credentials)
        } catch {
            logger.info("ending the session on the server failed", metadata: ["lifeline.error": "\(type(of: error))"])
        }
    }

    /// ``needsOnboarding(_:)`` as LOGGING_IN's attempt hears it: its failure is the attempt's end — a
    /// `SessionFailure` as it is, any other error a temporary `requestFailed`.
    func onboardingAnswer(_ credentials: SessionCredentials) async -> Result<Bool, SessionFailure> {
        do {
            return .success(try await needsOnboarding(credentials))
        } catch let end as SessionFailure {
            return .failure(end)
        } catch {
            let cause = TemporaryFailureCause(
                code: .requestFailed, message: "the onboarding check failed (\(type(of: error)))", cause: error)
            return .failure(.temporary(cause))
        }
    }
}
