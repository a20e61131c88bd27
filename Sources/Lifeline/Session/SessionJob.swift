import LifelineCore

/// A piece of a session's work, as data: what ``Session/run()``'s task group runs in one child task.
enum SessionJob: Sendable {
    /// A connection attempt: the onboarding check if asked, then the connection, after `previous` ended.
    case connection(
        SessionCredentials, generation: UInt64, checkingOnboarding: Bool, invalidate: Bool, previous: [Work])
    /// A check of a session the server called invalid.
    case checkSession(SessionCredentials, check: UInt64)
    /// A lookup of the account's standing.
    case lookUpStanding(userID: String, lookup: UInt64)
    /// Ending the session on the server.
    case endSession(SessionCredentials)
    /// One poll of the health service.
    case pollHealth(poll: UInt64)
    /// The health timer's loop, while a poll is scheduled: the polling's work between polls.
    case runHealthTimer
    /// Awaiting the answer of one play of a significant event (``PlayStart/pending(_:)``).
    case play(UInt64, answer: @Sendable () async throws -> Void)
    /// Handing the plays the connection answered at once to the plan, in one turn of the actor.
    case answerPlays
    /// Checking the live connection's socket after the device woke (``SessionConnection/startSocketCheck()``);
    /// `nil` when no connection is attached.
    case checkSocket((any SessionConnection)?, check: UInt64)
    /// Waiting for the disposed client's work to end, then READY.
    case dispose(waitingFor: [Work])
}
