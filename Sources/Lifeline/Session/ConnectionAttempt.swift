import LifelineCore
import Logging

/// One connection of a session, from the moment the machine asks for it to its end: it waits for every
/// connection still ending, invalidates the caches when RECONNECTING asked for it, checks onboarding on a fresh
/// login, runs the connection, and reports each milestone to the session, which hands it to the machine.
///
/// Decision: the attempt is its own part, apart from `Session`, so the runtime only starts it and hands its
/// reports to the funnel; what an attempt does between the two is read here, in order.
struct ConnectionAttempt: Sendable {
    /// What an attempt tells its session.
    enum Report: Sendable {
        /// The onboarding check found that the account has no username yet.
        case onboardingNeeded
        /// A milestone of the connection (the check's own failure is an end).
        case event(ConnectionEvent)
        /// The connection's `run` returned: an end without a reason, or the normal end of a superseded one.
        case returned

        /// Logs the report of attempt `generation`, a superseded one's too, so a log ties each transition to
        /// its connection (`lifeline soak`'s audit reads them in order, the report before its transition).
        func log(generation: UInt64, to logger: Logger) {
            switch self {
            case .event(let event):
                logger.debug("connection report", metadata: event.logMetadata(generation: generation))
            case .returned:
                logger.debug("connection returned", metadata: ["lifeline.generation": "\(generation)"])
            case .onboardingNeeded:
                break
            }
        }
    }

    let connections: any ConnectionFactory
    let authenticator: any Authenticator
    let hooks: (any SessionHooks)?

    /// Starts the attempt in `workload`, as the connection's work: it runs once every connection still ending
    /// there has ended, so two connections never overlap, not even for the moment a socket takes to close.
    /// Every report goes to `report`.
    ///
    /// - Returns: The attempt's work, which the machine holds as the connection's token.
    func start(
        _ credentials: SessionCredentials, generation: UInt64, checkingOnboarding: Bool, invalidatingCaches: Bool,
        in workload: SessionWorkload, report: @escaping @Sendable (Report) async -> Void
    ) -> SessionWork {
        let previous = workload.connections
        return workload.submit(racing: false, client: true, connection: true) { work in
            await run(
                credentials, generation: generation, checkingOnboarding: checkingOnboarding,
                invalidatingCaches: invalidatingCaches, after: previous, work: work, report: report)
        }
    }

    /// Runs the attempt as `work`, after every connection in `previous` has ended.
    private func run(
        _ credentials: SessionCredentials, generation: UInt64, checkingOnboarding: Bool, invalidatingCaches: Bool,
        after previous: [SessionWork], work: SessionWork, report: @escaping @Sendable (Report) async -> Void
    ) async {
        for connection in previous { await connection.ended() }
        guard !work.isCancelled, !Task.isCancelled else { return }
        if invalidatingCaches { await hooks?.invalidateCaches() }
        if checkingOnboarding, await !onboardingChecked(credentials, generation: generation, work: work, report) {
            return
        }
        await runConnection(credentials, generation: generation, work: work, report)
    }

    /// The connection's life, in a frame of its own: the longest-lived task of an idle session holds only it.
    private func runConnection(
        _ credentials: SessionCredentials, generation: UInt64, work: SessionWork,
        _ report: @escaping @Sendable (Report) async -> Void
    ) async {
        let connection = connections.makeConnection(for: credentials, generation: generation)
        guard work.attach(connection, closing: { connection.close() }) else { return }  // closed while being made
        await connection.run { event in await report(.event(event)) }
        await report(.returned)
    }

    /// LOGGING_IN's onboarding check, in a frame of its own that ends before the connection runs.
    ///
    /// - Returns: Whether the connection is to be made (no onboarding needed, and not closed meanwhile).
    private func onboardingChecked(
        _ credentials: SessionCredentials, generation: UInt64, work: SessionWork,
        _ report: @Sendable (Report) async -> Void
    ) async -> Bool {
        switch await work.race({ [authenticator] in await authenticator.onboardingAnswer(credentials) }) {
        case nil:
            break  // closed while the check was in flight
        case .success(false)?:
            return true
        case .success(true)?:
            await report(.onboardingNeeded)
        case .failure(let end)?:
            await report(.event(.ended(end)))
        }
        return false
    }
}
