/// The Web Push facet: `POST /push/subscribe` and `/push/unsubscribe` (`crates/delta/src/routes/push/`). The
/// subscription lives on the session: a new one replaces it, and it ends with the session (a logout, a
/// revocation, a disabled account), as the session's record does.
extension ServerState {
    /// `POST /push/subscribe`: the `Session` guard (so a bot's token is the framework's 401), then the
    /// subscription replaces the session's.
    func subscribePush(token: String?, _ subscription: PushSubscription) throws(RouteFailure) {
        var session = try sessionGuard(token)
        session.subscription = subscription
        sessions[session.token] = session
        persist(.session, id: session.token, session)
        changed()
    }

    /// `POST /push/unsubscribe`: the session's subscription is removed (204 whether or not it had one).
    func unsubscribePush(token: String?) throws(RouteFailure) {
        var session = try sessionGuard(token)
        session.subscription = nil
        sessions[session.token] = session
        persist(.session, id: session.token, session)
        changed()
    }

    /// Every live session's subscription, by session id.
    func pushSubscriptions() -> [SessionPushSubscription] {
        sessions.values.compactMap { session in
            session.subscription.map {
                SessionPushSubscription(sessionID: session.id, userID: session.userID, subscription: $0)
            }
        }
        .sorted { $0.sessionID < $1.sessionID }
    }
}
