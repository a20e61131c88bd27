// The facet of the machine that confirms an `InvalidSession` before the session is given up
// (`SessionCheckPolicy`).

extension SessionCore {
    /// ``SessionMachine`` documents `sessionChecked`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func sessionChecked(
        _ result: Result<SessionCheck, any Error>, check: UInt64, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard case .confirming? = attempt?.attempt, var confirmation, case .check(let pending) = confirmation.pending,
            pending == check
        else { return .ignored }
        switch result {
        case .success(.invalid):
            confirmation.invalidAnswers += 1
            if confirmation.invalidAnswers >= sessionCheckPolicy.checks {
                return handle(.permanentFailure(confirmation.reason), using: &generator)
            }
            let delay = sessionCheckPolicy.backoff.delay(failures: confirmation.invalidAnswers, using: &generator)
            let timer = SessionTimer(
                id: nextTicket(), purpose: .sessionCheck(answers: confirmation.invalidAnswers), delay: delay)
            confirmation.pending = .timer(timer.id)
            self.confirmation = confirmation
            return .updated(actions: [arm(timer)])
        case .success(.valid):
            let cause = TemporaryFailureCause(
                code: .unconfirmedInvalidSession,
                message: "the server said \(confirmation.reason.message), but a check found the session valid")
            return handle(.temporaryFailure(cause), using: &generator)
        case .failure(let error):
            let cause = TemporaryFailureCause(
                code: .unconfirmedInvalidSession,
                message: "the server said \(confirmation.reason.message), and the session could not be checked",
                cause: error)
            return handle(.temporaryFailure(cause), using: &generator)
        }
    }

    // MARK: - Confirming an invalid session

    /// The credentials and the attempt of a connecting state (LOGGING_IN, CONNECTING, RECONNECTING).
    var attempt: (credentials: SessionCredentials, attempt: Attempt)? {
        switch current {
        case .loggingIn(let c, let a), .connecting(let c, let a), .reconnecting(let c, let a): (c, a)
        case .ready, .onboarding, .error, .dispose, .connected, .disconnected, .offline: nil
        }
    }

    mutating func setAttempt(_ attempt: Attempt) {
        switch current {
        case .loggingIn(let c, _): current = .loggingIn(c, attempt)
        case .connecting(let c, _): current = .connecting(c, attempt)
        case .reconnecting(let c, _): current = .reconnecting(c, attempt)
        case .ready, .onboarding, .error, .dispose, .connected, .disconnected, .offline:
            preconditionFailure("an attempt set in \(state), which makes none")
        }
    }

    /// Checks the session after its connection ended with `InvalidSession`, the state unchanged (the
    /// connection ended by itself: nothing to close).
    mutating func startConfirming(_ reason: PermanentFailureReason) -> Output {
        guard let credentials else { preconditionFailure("confirming a session in \(state), which has none") }
        let check = nextTicket()
        setAttempt(.confirming)
        confirmation = Confirmation(reason: reason, invalidAnswers: 0, pending: .check(check))
        return .updated(actions: [.checkSession(credentials, check: check)])
    }
}
