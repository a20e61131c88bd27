extension StoatClient {
    // MARK: - Restrictions the server sets

    /// The restrictions the server has set for the signed-in user and not yet ended — the member timeout in
    /// each server, the slowmode in each channel — earliest first.
    ///
    /// Each comes from the server and ends only when the server says so: confirmed over REST once its
    /// ``StoatRestriction/deadline`` has come (`GET /servers/{id}/members/{user}` for a timeout, whose `Date`
    /// header also anchors the server's clock; `GET /channels/{id}` for a slowmode), or cleared on the events
    /// socket. The device's wall clock is never read, so a wrong or changed device clock makes no restriction
    /// end early or late. See <doc:LifelineStoat#Restrictions-the-server-sets>.
    public var restrictions: [StoatRestriction] { restrictionEngine.restrictions }

    /// The restrictions after every change, starting with the current ones, for any number of observers; a
    /// slow observer skips to the newest list (``CacheObservation``).
    public var restrictionUpdates: CacheObservation<[StoatRestriction]> {
        let engine = restrictionEngine
        return CacheObservation(signals: cache.signals, key: RestrictionEngine.signalKey) { engine.restrictions }
    }

    /// Every start and end of a restriction from the moment this property is read, until ``run()`` ends. Each
    /// read starts a new, independent subscription that receives every event (they are rare: a timeout, a
    /// slowmode).
    public var restrictionEvents: AsyncStream<StoatRestrictionEvent> { restrictionEngine.subscribe() }

    /// The time on the client's clock that ``StoatRestriction/deadline`` is stated on: the time since the
    /// client was created, on the clock it was given.
    public var restrictionClockNow: Duration { restrictionEngine.now }

    /// The user's timeout in a server, while the server says it is in force: they may read the server's
    /// channels, not send in them.
    ///
    /// - Parameter server: The server's id.
    public func timeout(in server: String) -> StoatRestriction? {
        restrictions.first { $0.id == StoatRestriction.ID(.timeout, server) }
    }

    /// The slowmode holding the user back in a channel, while the server says it is in force.
    ///
    /// - Parameter channel: The channel's id.
    public func slowmode(in channel: String) -> StoatRestriction? {
        restrictions.first { $0.id == StoatRestriction.ID(.slowmode, channel) }
    }
}
