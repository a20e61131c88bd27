public import LifelineCore

/// Checks an account's password with the server, and ends sessions the sign-in flow cannot use: the caller's
/// side of the sign-in flow.
///
/// The store never talks to the network. A Stoat client implements this with a login
/// (`POST /auth/session/login`) and a logout (`POST /auth/session/logout`); the answer decides between "wrong
/// password", "encryption failure" and creating the database.
///
/// A login that needs a second factor answers ``PasswordVerification/secondFactorRequired(_:)`` with a
/// ``SecondFactorChallenge`` that continues it; the flow hands it to the UI as
/// ``SignInOutcome/secondFactorRequired(_:)`` and carries on where it stopped once the user answers.
///
/// Every session a verification creates reaches the caller, or is ended through ``endSession(_:)``: when the
/// server accepts a password that does not open the database (an encryption failure), or when the store cannot
/// keep the session (a failed write), the flow calls ``endSession(_:)`` before it answers, so no session is left
/// open on the server with nobody holding its token (see <doc:LifelineStore#Sessions-the-flow-cannot-use>).
///
/// The verifier names the server it asks (``server``): an account's database belongs to that server, the
/// sessions it verifies are that server's, and a database bound to another server is never opened with it
/// (see <doc:LifelineStore#Accounts-belong-to-one-server>).
public protocol PasswordVerifier: Sendable {
    /// The server this verifier checks passwords with, normalised: the API the sessions it returns were
    /// issued by. The store binds the databases it creates through this verifier to it, and refuses to open
    /// a database of another server with it.
    var server: ServerIdentity { get }

    /// Asks the server whether `password` is the account's password.
    ///
    /// - Parameters:
    ///   - email: The account's email.
    ///   - password: The password the user typed. Never log it.
    /// - Returns: The server's answer; a verified password comes with the session the login created (its
    ///   `SessionCredentials/issuer`, if set, must be ``server``: the store stamps it when it is not).
    func verifyPassword(email: String, password: String) async -> PasswordVerification

    /// Ends a session a verification created that the sign-in flow cannot use.
    ///
    /// Called at most once per session, before the flow answers. Best effort: if the server cannot be reached,
    /// the session stays valid until the server expires it; the implementation may log that (without the
    /// token) or retry later.
    ///
    /// - Parameter session: The session to end. Its token is secret: never log it.
    func endSession(_ session: SessionCredentials) async
}
