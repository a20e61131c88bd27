extension ReferenceServer {
    /// Every events-socket connection accepted since start, open or closed, in accept order.
    public func connections() async -> [ConnectionRecord] {
        await state.connectionRecords()
    }

    /// The text frames received from clients that used session `token`, across its connections, in order
    /// (connection by connection in accept order). Includes the `Authenticate` frame.
    public func receivedFrames(token: String) async -> [String] {
        await state.connectionRecords().filter { $0.token == token }.flatMap(\.receivedFrames)
    }

    /// Every distinct session token clients sent this server, valid or not: in `X-Session-Token` on any
    /// request, and in the events socket's `Authenticate` (or its `token` query item). Tests assert with it
    /// that a token reached no server but its issuer.
    public func sessionTokensReceived() async -> ReceivedSessionTokens {
        await state.sessionTokensReceived()
    }

    /// Starts counting socket arrivals (upgrades accepted) afresh, in 100 ms bins from now.
    public func markArrivals() async {
        await state.markArrivals()
    }

    /// Socket arrivals since the last ``markArrivals()`` (or the start), in 100 ms bins.
    public func arrivals() async -> ArrivalHistogram {
        await state.arrivals()
    }

    /// Upgrades accepted and refused, sockets open now, and the fault and rate-limit counters.
    public func socketCounters() async -> SocketCounters {
        await state.counters()
    }

    /// The number of open sockets that use session `token`.
    public func liveSockets(token: String) async -> Int {
        await state.liveSockets(token: token)
    }

    /// Waits until `condition` holds for the connection records and counters, re-checking after every change
    /// the server observes (a frame received, a socket opened or closed, an upgrade counted…). Never polls.
    ///
    /// - Parameters:
    ///   - timeout: A failure bound, not a way to let time pass: 300 s unless given, so that a test on a slow,
    ///     loaded machine fails only when the state never comes.
    ///   - condition: Checked against the records and counters.
    /// - Throws: ``ObservationTimeout`` when the condition does not hold within `timeout`.
    public func waitUntil(
        timeout: Duration = .seconds(300),
        _ condition: @escaping @Sendable (_ connections: [ConnectionRecord], _ counters: SocketCounters) -> Bool
    ) async throws {
        let state = state
        let met = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in await state.changes() {
                    if condition(await state.connectionRecords(), await state.counters()) { return true }
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !met { throw ObservationTimeout(timeout: timeout) }
    }
}
