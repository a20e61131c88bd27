import LifelineCore
import Logging

/// The requests around a session the machine asks for — a check of the session or of the live socket, a
/// health poll, an account lookup, ending the session on the server — each made as a piece of work whose
/// answer is a ``SessionReport``.
///
/// Decision: a part of its own, apart from `Session`, so the runtime performs such an action in one line
/// (hand the work to the workload, the answer to the funnel), and what each request is, whose it is and what
/// it answers is read here.
struct SessionRequests: Sendable {
    /// One request, ready to run.
    struct Request: Sendable {
        /// Whether the current client owns it: DISPOSE stops it.
        let client: Bool
        /// Makes the request; its answer, or `nil` for a request the machine waits for no answer of.
        let run: @Sendable () async -> SessionReport?
    }

    let authenticator: any Authenticator
    let health: (any HealthService)?
    let logger: Logger

    /// The request `action` asks for, on the live `connection`, in `state`; `nil` for an action that is no
    /// request.
    func request(
        for action: Session.Machine.Action, connection: (any SessionConnection)?, in state: SessionState
    ) -> Request? {
        switch action {
        case .checkSession(let credentials, let check):
            return Request(client: true) { [authenticator] in
                let result = await Result(awaiting: { try await authenticator.checkSession(credentials) })
                return .sessionChecked(result, check: check)
            }
        case .pollHealth(let poll):
            return Request(client: true) { [health] in .healthAnswered(try? await health?.status(), poll: poll) }
        case .fetchAccountStanding(let userID, let lookup):
            // ERROR's lookup belongs to the client; the login screen's outlives DISPOSE, which it tailors.
            return Request(client: state == .error) { [authenticator] in
                .accountStanding(try? await authenticator.accountStanding(userID: userID), lookup: lookup)
            }
        case .checkSocket(_, let check):
            // The machine arms the check's deadline; an answer after it is ignored, and is not stale.
            return Request(client: true) {
                .socketChecked(check: check, answered: await connection?.startSocketCheck().succeeded() ?? false)
            }
        case .endSession(let credentials):
            // Not the client's: it outlives DISPOSE, and only the end of `run()` cancels it.
            return Request(client: false) { [authenticator, logger] in
                await authenticator.endSession(credentials, logger: logger)
                return nil
            }
        default:
            return nil
        }
    }
}
