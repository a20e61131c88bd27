#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the load facet keeps: the token each socket presented, the sockets open per token, and the `Subscribe`
/// frames each connection sent, so that a load test can check one socket per session and one replay per
/// connection without reading every frame back.
struct LoadObservation: Sendable {
    /// The token of each connection's `Authenticate` frame (silent sockets included), by connection.
    var tokens: [Int: String] = [:]
    /// The open connections that presented each token.
    var openByToken: [String: Set<Int>] = [:]
    /// The most connections one token had open at once.
    var maximumOpenPerToken = 0
    /// Every time a token was presented while another connection with it was still open.
    var overlapCount = 0
    /// The first overlaps, for the report.
    var overlaps: [LoadReport.Overlap] = []
    /// `Subscribe` frames per connection, by server.
    var subscribes: [Int: [String: Int]] = [:]

    static let keptOverlaps = 100
}

/// The load facet: populations of users made in one call, drops aimed at some users, a storm that starts the
/// arrival count and drops every socket in one step, and a compact report of the sockets. stoatchat has no
/// equivalent; these serve `lifeline bench --only storm` and `lifeline soak`.
extension ServerState {
    /// Creates `count` onboarded users, each with an account (an email and a password nobody is told) and a
    /// session, and `groups` servers, each with `channelsPerGroup` text channels and a poster who owns it; user `i` joins
    /// group `i % groups`. Silent: nobody is connected to hear of it, and a load of events would say nothing.
    func addLoadPopulation(
        users count: Int, groups: Int, channelsPerGroup: Int = 1
    ) throws(ReferenceServerError) -> LoadPopulation {
        guard (0...100_000).contains(count), (0...10_000).contains(groups), (1...10).contains(channelsPerGroup) else {
            throw ReferenceServerError(
                code: .refused, message: "A population is 0–100 000 users in 0–10 000 groups of 1–10 channels")
        }
        let batch = Identifiers.token().prefix(8).lowercased()
        let joined = now()
        func account(_ name: String) throws(ReferenceServerError) -> String {
            let account = try createAccount(
                email: "\(name)-\(batch)@load.lifeline.test", password: Identifiers.token(), verified: true,
                totpSecret: nil, recoveryCodes: [])
            upsert(user: StoatUser(id: account.id, username: "\(name)_\(batch)", discriminator: "0001"))
            return account.id
        }
        var made: [LoadPopulation.Group] = []
        for index in 0..<groups {
            let poster = try account("poster\(index)")
            let serverID = Identifiers.ulid(at: joined)
            let channelID = Identifiers.ulid(at: joined)
            upsert(server: StoatServer(id: serverID, owner: poster, name: "Load \(index)"))
            upsert(
                channel: .textChannel(id: channelID, server: serverID, name: "load-\(index)", description: nil))
            upsert(member: StoatMember(serverID: serverID, userID: poster, joinedAt: joined))
            var others: [String] = []
            for extra in 1..<channelsPerGroup {
                let other = Identifiers.ulid(at: joined)
                upsert(
                    channel: .textChannel(id: other, server: serverID, name: "load-\(index)-\(extra)", description: nil)
                )
                others.append(other)
            }
            made.append(.init(serverID: serverID, channelID: channelID, posterID: poster, otherChannelIDs: others))
        }
        var people: [LoadPopulation.User] = []
        people.reserveCapacity(count)
        for index in 0..<count {
            let userID = try account("load\(index)")
            let group = groups > 0 ? index % groups : nil
            if let group {
                upsert(member: StoatMember(serverID: made[group].serverID, userID: userID, joinedAt: joined))
            }
            people.append(.init(userID: userID, token: createSession(userID: userID, name: "load").token, group: group))
        }
        changed()
        return LoadPopulation(groups: made, users: people)
    }

    /// Closes the sockets of these users abruptly, as ``dropAllSockets()`` closes all of them.
    ///
    /// - Returns: How many sockets were dropped.
    func dropSockets(userIDs: Set<String>) -> Int {
        var dropped = 0
        for (id, connection) in connections where loadUserID(of: id, connection.record).map(userIDs.contains) == true {
            connection.socket.outbound.yield(.abort)
            dropped += 1
        }
        return dropped
    }

    /// Starts counting arrivals and drops every socket, in one step, so that the first bin starts at the drop.
    func startStorm() -> Int {
        markArrivals()
        return dropAllSockets()
    }

    // MARK: Observation

    /// Notes what a load test checks in a client frame: the token of an `Authenticate` (before the server
    /// reads it, so silent sockets count too) and `Subscribe` frames. Called for every text frame received.
    func noteLoadFrame(_ text: String, connectionID: Int) {
        guard let connection = connections[connectionID] else { return }
        if connection.phase == .awaitingAuthentication, load.tokens[connectionID] == nil,
            case .authenticate(let token) = ClientFrame(text: text)
        {
            load.tokens[connectionID] = token
            let others = load.openByToken[token, default: []]
            if !others.isEmpty {
                load.overlapCount += 1
                if load.overlaps.count < LoadObservation.keptOverlaps {
                    load.overlaps.append(
                        LoadReport.Overlap(
                            userID: sessions[token]?.userID, connectionIDs: (others + [connectionID]).sorted(),
                            at: now()))
                }
            }
            load.openByToken[token, default: []].insert(connectionID)
            load.maximumOpenPerToken = max(load.maximumOpenPerToken, others.count + 1)
        } else if text.contains("\"Subscribe\""), case .subscribe(let serverID) = ClientFrame(text: text) {
            load.subscribes[connectionID, default: [:]][serverID, default: 0] += 1
        }
    }

    /// A closed connection's record is no longer kept: neither is what the load facet noted of it.
    func forgetLoad(connectionID: Int) {
        load.tokens[connectionID] = nil
        load.subscribes[connectionID] = nil
    }

    /// The socket closed: it no longer counts as open for its token.
    func noteLoadClose(connectionID: Int) {
        guard let token = load.tokens[connectionID] else { return }
        load.openByToken[token]?.remove(connectionID)
        if load.openByToken[token]?.isEmpty == true { load.openByToken[token] = nil }
    }

    /// The report of ``ReferenceServer/loadReport(closedAfter:)``.
    func loadReport(closedAfter: Int) -> LoadReport {
        // `closedAfter` counts every connection closed since the start; the oldest may no longer be kept.
        let start = min(max(0, closedAfter - closedRecordsDropped), closedRecords.count)
        let closed = closedRecords[start...].map { loadSummary(of: $0) }
        let open = connections.values.map { loadSummary(of: $0.record) }.sorted { $0.id < $1.id }
        return LoadReport(
            counters: counters(), maximumOpenPerToken: load.maximumOpenPerToken, overlapCount: load.overlapCount,
            overlaps: load.overlaps, closedCount: closedRecordsDropped + closedRecords.count, closed: closed,
            open: open)
    }

    private func loadSummary(of record: ConnectionRecord) -> LoadReport.Connection {
        LoadReport.Connection(
            id: record.id, userID: loadUserID(of: record.id, record), isOpen: record.isOpen,
            receivedReady: record.receivedReady, subscribes: load.subscribes[record.id] ?? [:])
    }

    /// The user a connection is for: the one it authenticated as, or the owner of the token it presented.
    private func loadUserID(of connectionID: Int, _ record: ConnectionRecord) -> String? {
        record.userID ?? load.tokens[connectionID].flatMap { sessions[$0]?.userID }
    }
}
