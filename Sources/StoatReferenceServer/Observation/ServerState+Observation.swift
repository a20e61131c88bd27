/// The observation facet: connection records, counters, socket arrivals, and a change stream that
/// ``ReferenceServer/waitUntil(timeout:_:)`` re-checks its condition on.
extension ServerState {
    func connectionRecords() -> [ConnectionRecord] {
        let instant = now()
        let lifetime = configuration.subscriptionLifetime.seconds
        let open = connections.values.map { connection in
            var record = connection.record
            record.activeSubscriptions = connection.activeServers
                .filter { $0.renewedAt.addingTimeInterval(lifetime) >= instant }
                .map(\.id)
            record.memberEventServers = connection.topics.filter {
                $0.hasSuffix("u") && servers[String($0.dropLast())] != nil
            }
            .map { String($0.dropLast()) }
            .sorted()
            return record
        }
        return (closedRecords + open).sorted { $0.id < $1.id }
    }

    /// Records a client frame in its connection's record, keeping the newest
    /// ``ObservationLimits/framesPerConnection``.
    func recordFrame(_ text: String, connectionID: Int) {
        guard var record = connections[connectionID]?.record else { return }
        // Taken out of the dictionary while it changes, so the array is not copied.
        connections[connectionID]?.record.receivedFrames = []
        record.droppedFrames += record.receivedFrames.append(
            text, keepingAtMost: configuration.observationLimits.framesPerConnection)
        connections[connectionID]?.record = record
    }

    /// Keeps a closed connection's record among the latest ``ObservationLimits/closedConnections``; the load
    /// facet forgets what it noted of the ones that fall out.
    func keepClosed(_ record: ConnectionRecord) {
        let limit = configuration.observationLimits.closedConnections
        closedRecords.append(record)
        guard closedRecords.count > limit + limit / 4 else { return }
        let excess = closedRecords.count - limit
        for old in closedRecords.prefix(excess) { forgetLoad(connectionID: old.id) }
        closedRecords.removeFirst(excess)
        closedRecordsDropped += excess
    }

    func counters() -> SocketCounters {
        SocketCounters(
            upgradesAccepted: upgradesAccepted, upgradesRefused: upgradesRefused, liveSockets: connections.count,
            outageSessionChecks: outageSessionChecks, outageSocketRefusals: outageSocketRefusals,
            rateLimited: rateLimited, lostSendAnswers: lostSendAnswers, uploadsStored: uploadsStored,
            lostUploadAnswers: lostUploadAnswers, uploadBytesReceived: uploadBytesReceived,
            pushSubscriptions: sessions.values.count { $0.subscription != nil })
    }

    func liveSockets(token: String) -> Int {
        connections.values.count { $0.record.token == token }
    }

    // MARK: Tokens received

    /// The most distinct session tokens ``observedSessionTokens`` keeps, so a server that runs for days stays
    /// bounded.
    static let maximumObservedTokens = 10_000

    /// Records a session token a client sent, on REST or the socket.
    func observeSessionToken(_ token: String) {
        guard !observedSessionTokens.contains(token) else { return }
        guard observedSessionTokens.count < Self.maximumObservedTokens else {
            unrecordedSessionTokens += 1
            return
        }
        observedSessionTokens.insert(token)
        changed()
    }

    func sessionTokensReceived() -> ReceivedSessionTokens {
        ReceivedSessionTokens(tokens: observedSessionTokens, unrecorded: unrecordedSessionTokens)
    }

    // MARK: Arrivals

    /// Starts counting socket arrivals afresh from now.
    func markArrivals() {
        arrivalMark = .now
        arrivalBins = []
        lateArrivals = 0
        changed()
    }

    func countArrival() {
        let elapsed = arrivalMark.duration(to: .now)
        let bin = Int(elapsed.milliseconds / 100)
        guard bin >= 0 else { return }
        guard bin < configuration.observationLimits.arrivalBins else {
            lateArrivals += 1
            return
        }
        if arrivalBins.count <= bin {
            arrivalBins.append(contentsOf: repeatElement(0, count: bin + 1 - arrivalBins.count))
        }
        arrivalBins[bin] += 1
    }

    func arrivals() -> ArrivalHistogram {
        ArrivalHistogram(
            binMilliseconds: 100, millisecondsSinceMark: Int(arrivalMark.duration(to: .now).milliseconds),
            bins: arrivalBins, late: lateArrivals)
    }

    // MARK: Changes

    /// A stream that yields once now and once after every observable change.
    func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextObserverID
        nextObserverID += 1
        observers[id] = continuation
        continuation.yield()
        continuation.onTermination = { _ in Task { await self.removeObserver(id) } }
        return stream
    }

    private func removeObserver(_ id: Int) {
        observers[id] = nil
    }
}
