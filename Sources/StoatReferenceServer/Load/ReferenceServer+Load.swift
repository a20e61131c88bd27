extension ReferenceServer {
    /// Creates `users` onboarded users, each with an account and a session token of their own, and `groups`
    /// servers, each with one text channel and a poster who owns it; user `i` joins group `i % groups`.
    ///
    /// Made silently, in one step: what a load test needs before its sessions connect, without the login's
    /// rate limit and lockout in the way.
    ///
    /// - Parameters:
    ///   - users: How many users, 0–100 000.
    ///   - groups: How many groups, 0–10 000; 0 leaves the users in no server.
    /// - Returns: The groups and the users with their tokens.
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/refused`` for a count out of range.
    public func addLoadPopulation(users: Int, groups: Int = 0) async throws(ReferenceServerError) -> LoadPopulation {
        try await state.addLoadPopulation(users: users, groups: groups)
    }

    /// Closes the sockets of these users abruptly (no close frame), as a network failure would.
    ///
    /// - Returns: How many sockets were dropped.
    @discardableResult
    public func dropSockets(userIDs: Set<String>) async -> Int {
        await state.dropSockets(userIDs: userIDs)
    }

    /// Starts counting socket arrivals afresh (``markArrivals()``) and drops every socket, in one step, so
    /// that the first 100 ms bin of ``arrivals()`` starts at the drop.
    ///
    /// - Returns: How many sockets were dropped.
    @discardableResult
    public func startStorm() async -> Int {
        await state.startStorm()
    }

    /// The counters, how many sockets one token ever had open at once, and each connection's user, `Ready` and
    /// `Subscribe` frames: the connections open now, and those closed after the first `closedAfter` closes.
    ///
    /// - Parameter closedAfter: How many closed connections the caller has seen (the previous report's
    ///   ``LoadReport/closedCount``); 0 for all.
    public func loadReport(closedAfter: Int = 0) async -> LoadReport {
        await state.loadReport(closedAfter: closedAfter)
    }
}
