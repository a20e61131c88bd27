extension StoatClient {
    // MARK: - Web Push

    /// Subscribes this device to Web Push notifications: sent (`POST /push/subscribe`) once the session is
    /// CONNECTED — now, if it is — and again for every new session, at its CONNECTED.
    ///
    /// stoatchat keeps the subscription on the session: a logout (or a revocation) ends it with the session, and
    /// the next login's session is subscribed again by this client as long as the app has not withdrawn it
    /// (``unsubscribePush()``). It is never sent before the session is CONNECTED, so it is never refused as one
    /// sent before login is (stoatchat#527). ``pushStatus`` says where it stands; a failure is tried again at the
    /// next CONNECTED. Give the subscription at every launch: the client does not store it.
    ///
    /// - Parameter subscription: The push service's endpoint and the device's keys.
    public func subscribePush(_ subscription: WebPushSubscription) async {
        await pushEngine.subscribe(subscription, connected: session.snapshot.state == .connected)
    }

    /// Withdraws the device's Web Push subscription: removed from the server (`POST /push/unsubscribe`) when the
    /// current session holds it, and not sent for later sessions.
    ///
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/requestFailed`` when the server could not be
    ///   told (the client has withdrawn it all the same; the session's end removes it from the server).
    public func unsubscribePush() async throws(StoatClientError) {
        do {
            try await pushEngine.unsubscribe()
        } catch {
            throw StoatClientError(
                code: .requestFailed, message: "The push subscription could not be removed", cause: error)
        }
    }

    /// Where the device's Web Push subscription stands.
    public var pushStatus: PushStatus { pushEngine.status }

    /// The push status after every change, starting with the current one; a slow observer skips to the newest.
    public var pushUpdates: CacheObservation<PushStatus> {
        let engine = pushEngine
        return CacheObservation(signals: cache.signals, key: PushEngine.signalKey) { engine.status }
    }
}
