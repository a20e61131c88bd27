import Logging
import NIOCore
import NIOWebSocket

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a connection's writer task does next. Every frame to one socket goes through its queue, so a
/// fragmented Ready is never interleaved with another frame.
enum Outbound: Sendable {
    /// A text message (fragmented by the writer when large).
    case text(ByteBuffer)
    /// Send a close frame with this code, then end the connection.
    case close(code: WebSocketErrorCode, reason: String?)
    /// Close the TCP connection without a close frame, as a network failure would.
    case drop
}

/// A live socket's handles: its outbound queue and its NIO channel.
struct LiveSocket: Sendable {
    let outbound: AsyncStream<Outbound>.Continuation
    let channel: any Channel

    func send(_ text: String) {
        outbound.yield(.text(ByteBuffer(string: text)))
    }
}

/// An error answered over REST as `{"type": kind, "location": …}` with the kind's status.
struct APIError: Error {
    let kind: StoatErrorKind
    let location: String
}

/// The faults in force.
struct Faults: Sendable {
    var refuseUpgrades = 0
    var silent = false
    var ignorePings = false
    var readyDelay: Duration?
    var readyMinimumBytes: Int?
    var forcedLogins: [LoginAnswer] = []
    var health = HealthState()
}

/// What `GET /api/health` answers.
struct HealthState: Sendable {
    var alert: HealthAlert?
    var pollRate: Int?
}

/// The server's whole state: data, sessions, sockets, faults and observation. One actor, so every REST call,
/// socket frame and fault sees a consistent picture.
actor ServerState {
    private struct Connection {
        var record: ConnectionRecord
        let socket: LiveSocket
        let filter: ReadyFilter
        let silent: Bool
    }

    private let configuration: ReferenceServer.Configuration
    private let store: PersistentStore?
    private let logger: Logger

    private var accounts: [String: Account] = [:]
    private var accountIDByEmail: [String: String] = [:]
    private var sessions: [String: SessionRecord] = [:]
    private var tickets: [String: MFATicket] = [:]
    private var users: [String: StoatUser] = [:]
    private var userOrder: [String] = []
    private var servers: [String: StoatServer] = [:]
    private var serverOrder: [String] = []
    private var channels: [String: StoatChannel] = [:]
    private var channelOrder: [String] = []
    private var members: [StoatMember.Key: StoatMember] = [:]
    private var memberIDsByServer: [String: [String]] = [:]
    private var serverIDsByUser: [String: [String]] = [:]
    private var emojis: [String: StoatEmoji] = [:]
    private var emojiIDsByServer: [String: [String]] = [:]
    private var operations: [String: StoatOperation] = [:]

    private var connections: [Int: Connection] = [:]
    private var closedRecords: [ConnectionRecord] = []
    private var nextConnectionID = 1
    private var upgradesAccepted = 0
    private var upgradesRefused = 0
    private var observers: [Int: AsyncStream<Void>.Continuation] = [:]
    private var nextObserverID = 0

    private(set) var faults = Faults()
    private var clockSkew: Duration = .zero

    init(configuration: ReferenceServer.Configuration, store: PersistentStore?) {
        self.configuration = configuration
        self.store = store
        self.logger = configuration.logger
    }

    /// Loads everything the data file holds (nothing without one).
    func loadPersisted() throws {
        guard let store else { return }
        for account in try store.all(.account, as: Account.self) {
            accounts[account.id] = account
            accountIDByEmail[account.email.lowercased()] = account.id
        }
        for session in try store.all(.session, as: SessionRecord.self) { sessions[session.token] = session }
        for user in try store.all(.user, as: StoatUser.self) { insert(user) }
        for server in try store.all(.server, as: StoatServer.self) { insert(server) }
        for channel in try store.all(.channel, as: StoatChannel.self) { insert(channel) }
        for member in try store.all(.member, as: StoatMember.self) { insert(member) }
        for emoji in try store.all(.emoji, as: StoatEmoji.self) { insert(emoji) }
        for operation in try store.all(.operation, as: StoatOperation.self) { operations[operation.id] = operation }
    }

    // MARK: Clock

    /// The server's clock: the configured clock plus the skew fault.
    func now() -> Date {
        configuration.now().addingTimeInterval(clockSkew.seconds)
    }

    func setClockSkew(_ skew: Duration) {
        clockSkew = skew
        changed()
    }

    // MARK: Persistence

    private func persist(_ kind: PersistentStore.Kind, id: String, _ value: some Encodable) {
        guard let store else { return }
        do {
            try store.put(kind, id: id, value)
        } catch {
            logger.error("Could not persist a record", metadata: ["stoat.kind": "\(kind.rawValue)"])
        }
    }

    private func unpersist(_ kind: PersistentStore.Kind, id: String) {
        guard let store else { return }
        do {
            try store.delete(kind, id: id)
        } catch {
            logger.error("Could not delete a record", metadata: ["stoat.kind": "\(kind.rawValue)"])
        }
    }

    // MARK: Data

    private func insert(_ user: StoatUser) {
        if users.updateValue(user, forKey: user.id) == nil { userOrder.append(user.id) }
    }

    private func insert(_ server: StoatServer) {
        if servers.updateValue(server, forKey: server.id) == nil { serverOrder.append(server.id) }
    }

    private func insert(_ channel: StoatChannel) {
        if channels.updateValue(channel, forKey: channel.id) == nil { channelOrder.append(channel.id) }
    }

    private func insert(_ member: StoatMember) {
        let key = StoatMember.Key(server: member.serverID, user: member.userID)
        if members.updateValue(member, forKey: key) == nil {
            memberIDsByServer[member.serverID, default: []].append(member.userID)
            serverIDsByUser[member.userID, default: []].append(member.serverID)
        }
    }

    private func insert(_ emoji: StoatEmoji) {
        if emojis.updateValue(emoji, forKey: emoji.id) == nil {
            emojiIDsByServer[emoji.serverID, default: []].append(emoji.id)
        }
    }

    func account(email: String) -> Account? {
        accountIDByEmail[email.lowercased()].flatMap { accounts[$0] }
    }

    func createAccount(
        email: String, password: String, verified: Bool, totpSecret: [UInt8]?, recoveryCodes: [String]
    ) throws(APIError) -> Account {
        guard accountIDByEmail[email.lowercased()] == nil else {
            throw APIError(kind: .failedValidation, location: "seed:email-taken")
        }
        let account = Account(
            id: Identifiers.ulid(at: now()), email: email, passwordHash: .make(password), verified: verified,
            totpSecret: totpSecret, recoveryCodes: recoveryCodes)
        accounts[account.id] = account
        accountIDByEmail[email.lowercased()] = account.id
        persist(.account, id: account.id, account)
        return account
    }

    func anyToken(userID: String) -> String? {
        sessions.values.filter { $0.userID == userID }.min { $0.lastSeen < $1.lastSeen }?.token
    }

    func createSession(userID: String, name: String) -> SessionRecord {
        let session = SessionRecord(
            id: Identifiers.ulid(at: now()), token: Identifiers.token(), userID: userID, name: name, lastSeen: now())
        sessions[session.token] = session
        persist(.session, id: session.token, session)
        changed()
        return session
    }

    func user(id: String) -> StoatUser? { users[id] }

    func upsert(user: StoatUser) {
        insert(user)
        persist(.user, id: user.id, user)
    }

    func upsert(server: StoatServer) {
        insert(server)
        persist(.server, id: server.id, server)
    }

    func upsert(channel: StoatChannel) {
        insert(channel)
        if let serverID = channel.serverID, var server = servers[serverID], !server.channels.contains(channel.id) {
            server.channels.append(channel.id)
            upsert(server: server)
        }
        persist(.channel, id: channel.id, channel)
    }

    func upsert(member: StoatMember) {
        insert(member)
        persist(.member, id: "\(member.serverID):\(member.userID)", member)
    }

    func upsert(emoji: StoatEmoji) {
        insert(emoji)
        persist(.emoji, id: emoji.id, emoji)
    }

    /// Inserts many records at once and writes them in one transaction (the dataset generator).
    func bulkInsert(
        users newUsers: [StoatUser], servers newServers: [StoatServer], channels newChannels: [StoatChannel],
        members newMembers: [StoatMember], emojis newEmojis: [StoatEmoji]
    ) throws {
        newUsers.forEach { insert($0) }
        newServers.forEach { insert($0) }
        newChannels.forEach { insert($0) }
        newMembers.forEach { insert($0) }
        newEmojis.forEach { insert($0) }
        guard let store else { return }
        let encoder = JSONEncoder()
        try store.putAll(.user, newUsers.map { ($0.id, try encoder.encode($0)) })
        try store.putAll(.server, newServers.map { ($0.id, try encoder.encode($0)) })
        try store.putAll(.channel, newChannels.map { ($0.id, try encoder.encode($0)) })
        try store.putAll(.member, newMembers.map { ("\($0.serverID):\($0.userID)", try encoder.encode($0)) })
        try store.putAll(.emoji, newEmojis.map { ($0.id, try encoder.encode($0)) })
    }

    func setFlags(_ flags: UInt32, userID: String) -> Bool {
        guard var user = users[userID] else { return false }
        user.flags = flags
        upsert(user: user)
        return true
    }

    func disableAccount(userID: String) -> Bool {
        guard var account = accounts[userID] else { return false }
        account.disabled = true
        accounts[userID] = account
        persist(.account, id: userID, account)
        for session in sessions.values where session.userID == userID {
            revoke(token: session.token)
        }
        return true
    }

    // MARK: REST

    private func session(_ token: String?, location: String) throws(APIError) -> SessionRecord {
        guard let token else { throw APIError(kind: .notAuthenticated, location: location) }
        guard let session = sessions[token] else { throw APIError(kind: .invalidSession, location: location) }
        return session
    }

    private func onboardedUser(_ token: String?, location: String) throws(APIError) -> StoatUser {
        let session = try session(token, location: location)
        guard let user = users[session.userID] else { throw APIError(kind: .invalidSession, location: location) }
        return user
    }

    /// The outcome of a login request, before it is encoded.
    enum LoginOutcome {
        case success(SessionRecord)
        case mfa(ticket: String, methods: [String])
        case disabled(userID: String)
    }

    func login(_ request: LoginRequest) throws(APIError) -> LoginOutcome {
        let location = "auth/session/login"
        if !faults.forcedLogins.isEmpty {
            let answer = faults.forcedLogins.removeFirst()
            changed()
            let accountID = request.email.flatMap { account(email: $0)?.id } ?? Identifiers.ulid(at: now())
            switch answer.kind {
            case .error(let kind):
                throw APIError(kind: kind, location: location)
            case .mfa:
                return issueTicket(accountID: accountID, friendlyName: request.friendlyName)
            case .disabled:
                return .disabled(userID: accountID)
            }
        }
        if let ticketToken = request.mfaTicket {
            guard let ticket = tickets[ticketToken], ticket.expiresAt > now(), var account = accounts[ticket.accountID]
            else { throw APIError(kind: .invalidToken, location: location) }
            let accepted: Bool
            switch request.mfaResponse {
            case .totp(let code):
                accepted = account.totpSecret.map { TOTP.verify(code, secret: $0, at: now()) } ?? false
            case .recovery(let code):
                if let index = account.recoveryCodes.firstIndex(of: code) {
                    account.recoveryCodes.remove(at: index)
                    accounts[account.id] = account
                    persist(.account, id: account.id, account)
                    accepted = true
                } else {
                    accepted = false
                }
            case .password(let password):
                accepted = account.passwordHash.verify(password)
            case nil:
                throw APIError(kind: .failedValidation, location: location)
            }
            guard accepted else { throw APIError(kind: .invalidToken, location: location) }
            tickets[ticketToken] = nil
            return .success(createSession(userID: account.id, name: ticket.friendlyName ?? "Unknown"))
        }
        guard let email = request.email, let password = request.password else {
            throw APIError(kind: .failedValidation, location: location)
        }
        guard var account = account(email: email) else {
            throw APIError(kind: .invalidCredentials, location: location)
        }
        let instant = now()
        if account.lockout.isLocked(at: instant) { throw APIError(kind: .lockedOut, location: location) }
        guard account.passwordHash.verify(password) else {
            account.lockout.recordFailure(at: instant, policy: configuration.lockoutPolicy)
            accounts[account.id] = account
            persist(.account, id: account.id, account)
            throw APIError(kind: .invalidCredentials, location: location)
        }
        account.lockout.recordSuccess()
        accounts[account.id] = account
        persist(.account, id: account.id, account)
        guard account.verified else { throw APIError(kind: .unverifiedAccount, location: location) }
        if account.disabled { return .disabled(userID: account.id) }
        if account.hasMFA { return issueTicket(accountID: account.id, friendlyName: request.friendlyName) }
        return .success(createSession(userID: account.id, name: request.friendlyName ?? "Unknown"))
    }

    private func issueTicket(accountID: String, friendlyName: String?) -> LoginOutcome {
        let token = Identifiers.token()
        tickets[token] = MFATicket(accountID: accountID, friendlyName: friendlyName, expiresAt: now() + 600)
        var methods: [String] = []
        if let account = accounts[accountID] {
            if account.totpSecret != nil { methods.append("Totp") }
            if !account.recoveryCodes.isEmpty { methods.append("Recovery") }
        }
        return .mfa(ticket: token, methods: methods.isEmpty ? ["Password"] : methods)
    }

    func logout(token: String?) throws(APIError) {
        let session = try session(token, location: "auth/session/logout")
        revoke(token: session.token)
    }

    func onboardingNeeded(token: String?) throws(APIError) -> Bool {
        let session = try session(token, location: "onboard/hello")
        return users[session.userID] == nil
    }

    func completeOnboarding(token: String?, username: String?) throws(APIError) -> StoatUser {
        let location = "onboard/complete"
        let session = try session(token, location: location)
        guard users[session.userID] == nil else { throw APIError(kind: .alreadyOnboarded, location: location) }
        guard let username, UsernameRule.isValid(username) else {
            throw APIError(kind: .failedValidation, location: location)
        }
        let lowered = username.lowercased()
        guard !users.values.contains(where: { $0.username.lowercased() == lowered }) else {
            throw APIError(kind: .usernameTaken, location: location)
        }
        let user = StoatUser(
            id: session.userID, username: username, discriminator: String(Int.random(in: 1000...9999)), online: true)
        upsert(user: user)
        changed()
        return user.seen(by: user.id)
    }

    func me(token: String?) throws(APIError) -> StoatUser {
        let user = try onboardedUser(token, location: "users/@me")
        return user.seen(by: user.id)
    }

    func flags(userID: String) throws(APIError) -> UInt32 {
        guard let user = users[userID] else { throw APIError(kind: .notFound, location: "users/flags") }
        return user.flags
    }

    func operations(token: String?) throws(APIError) -> [StoatOperation] {
        let session = try session(token, location: "operations")
        return operations.values.filter { $0.userID == session.userID }.sorted { $0.expiresAt < $1.expiresAt }
    }

    // MARK: Operations

    func addOperation(kind: String, userID: String, expiresIn: Duration) -> StoatOperation {
        let operation = StoatOperation(
            id: Identifiers.ulid(at: now()), kind: kind, userID: userID,
            expiresAt: now().addingTimeInterval(expiresIn.seconds))
        operations[operation.id] = operation
        persist(.operation, id: operation.id, operation)
        changed()
        return operation
    }

    @discardableResult
    func finishOperation(id: String, result: OperationResult) -> Bool {
        guard let operation = operations.removeValue(forKey: id) else { return false }
        unpersist(.operation, id: id)
        let frame = ServerEvent.operationFinished(id: id, result: result)
        for connection in connections.values
        where connection.record.isAuthenticated && connection.record.userID == operation.userID {
            connection.socket.send(frame)
        }
        changed()
        return true
    }

    /// Ends every operation whose expiry has passed in the server's clock with `timeout`; returns their ids.
    func expireOperations() -> [String] {
        let instant = now()
        let expired = operations.values.filter { $0.expiresAt <= instant }.sorted { $0.expiresAt < $1.expiresAt }
        for operation in expired { finishOperation(id: operation.id, result: .timeout) }
        return expired.map(\.id)
    }

    // MARK: Faults

    func refuseUpgrades(_ count: Int) {
        faults.refuseUpgrades = max(0, count)
        changed()
    }

    func setSilent(_ silent: Bool) { faults.silent = silent }
    func setIgnorePings(_ ignore: Bool) { faults.ignorePings = ignore }
    func setReadyDelay(_ delay: Duration?) { faults.readyDelay = delay }
    func setReadyMinimumBytes(_ bytes: Int?) { faults.readyMinimumBytes = bytes }

    func forceLogins(_ answer: LoginAnswer, count: Int) {
        faults.forcedLogins.append(contentsOf: Array(repeating: answer, count: max(0, count)))
    }

    func setHealth(alert: HealthAlert?, pollRate: Int?) {
        faults.health = HealthState(alert: alert, pollRate: pollRate)
    }

    func health() -> HealthState { faults.health }

    func resetFaults() {
        faults = Faults()
        clockSkew = .zero
        changed()
    }

    /// Closes every live socket abruptly (no close frame), as a network failure would.
    func dropAllSockets() -> Int {
        for connection in connections.values { connection.socket.outbound.yield(.drop) }
        return connections.count
    }

    /// Deletes the session: its sockets receive `Logout`, then a close.
    @discardableResult
    func revoke(token: String) -> Bool {
        guard let session = sessions.removeValue(forKey: token) else { return false }
        unpersist(.session, id: session.token)
        for connection in connections.values where connection.record.token == token {
            connection.socket.send(ServerEvent.logout)
            connection.socket.outbound.yield(.close(code: .normalClosure, reason: nil))
        }
        changed()
        return true
    }

    /// Sends `text` verbatim to the sockets of the session `token` (every live socket when nil).
    func sendRaw(_ text: String, token: String?) -> Int {
        let targets = connections.values.filter { token == nil || $0.record.token == token }
        for connection in targets { connection.socket.send(text) }
        return targets.count
    }

    // MARK: Sockets

    /// Whether the next upgrade may go ahead; counts it either way.
    func admitUpgrade() -> Bool {
        defer { changed() }
        if faults.refuseUpgrades > 0 {
            faults.refuseUpgrades -= 1
            upgradesRefused += 1
            return false
        }
        upgradesAccepted += 1
        return true
    }

    func open(socket: LiveSocket, filter: ReadyFilter) -> Int {
        let id = nextConnectionID
        nextConnectionID += 1
        let record = ConnectionRecord(
            id: id, acceptedAt: now(), token: nil, userID: nil, isOpen: true, isAuthenticated: false,
            receivedReady: false, receivedFrames: [], subscriptions: [])
        connections[id] = Connection(record: record, socket: socket, filter: filter, silent: faults.silent)
        changed()
        return id
    }

    func close(connectionID: Int) {
        guard var connection = connections.removeValue(forKey: connectionID) else { return }
        connection.record.isOpen = false
        closedRecords.append(connection.record)
        changed()
    }

    /// A text frame from the client: recorded, then answered.
    func received(_ text: String, connectionID: Int) {
        guard connections[connectionID] != nil else { return }
        connections[connectionID]?.record.receivedFrames.append(text)
        defer { changed() }
        handle(ClientFrame(text: text), connectionID: connectionID)
    }

    /// A binary frame (MessagePack is not spoken): recorded as a placeholder and ignored.
    func receivedBinary(byteCount: Int, connectionID: Int) {
        connections[connectionID]?.record.receivedFrames.append("<binary \(byteCount) bytes>")
        changed()
    }

    private func handle(_ frame: ClientFrame, connectionID: Int) {
        guard let connection = connections[connectionID], !connection.silent else { return }
        switch frame {
        case .authenticate(let token):
            authenticate(token: token, connectionID: connectionID)
        case .ping(let data):
            guard !faults.ignorePings else { return }
            connection.socket.send(ServerEvent.pong(data))
        case .subscribe(let serverID):
            guard connection.record.isAuthenticated,
                !connection.record.subscriptions.contains(serverID)
            else { return }
            connections[connectionID]?.record.subscriptions.append(serverID)
        case .beginTyping(let channel), .endTyping(let channel):
            guard connection.record.isAuthenticated, let userID = connection.record.userID else { return }
            var started = false
            if case .beginTyping = frame { started = true }
            fanOutTyping(started: started, channelID: channel, userID: userID)
        case .pingWithInvalidData, .unknown, .malformed:
            // Like Stoat: no answer, and the connection stays open.
            return
        }
    }

    func authenticate(token: String, connectionID: Int) {
        guard let connection = connections[connectionID], !connection.silent,
            !connection.record.isAuthenticated
        else { return }
        connections[connectionID]?.record.token = token
        guard let session = sessions[token], users[session.userID] != nil else {
            connection.socket.send(ServerEvent.error(.invalidSession, location: "bonfire:authenticate"))
            connection.socket.outbound.yield(.close(code: .normalClosure, reason: nil))
            changed()
            return
        }
        connections[connectionID]?.record.userID = session.userID
        connections[connectionID]?.record.isAuthenticated = true
        connection.socket.send(ServerEvent.authenticated)
        sessions[token]?.lastSeen = now()
        changed()
        let delay = faults.readyDelay
        let minimumBytes = faults.readyMinimumBytes
        // Detached so that the encoding runs off the actor: a large Ready must not stall other connections.
        Task.detached {
            if let delay { try? await Task.sleep(for: delay) }
            guard let payload = await self.readyPayload(connectionID: connectionID) else { return }
            let data = (try? payload.encoded(minimumBytes: minimumBytes)) ?? Data()
            await self.deliverReady(ByteBuffer(bytes: data), connectionID: connectionID)
        }
    }

    private func readyPayload(connectionID: Int) -> ReadyPayload? {
        guard let connection = connections[connectionID], let userID = connection.record.userID else { return nil }
        return readyPayload(userID: userID, filter: connection.filter)
    }

    /// The Ready `userID` receives: their servers, those servers' channels and emojis, their own memberships,
    /// the channels they are a recipient of, and the users they share a server or channel with.
    func readyPayload(userID: String, filter: ReadyFilter) -> ReadyPayload {
        let serverIDs = serverIDsByUser[userID] ?? []
        let memberServers = serverIDs.compactMap { servers[$0] }
        var channelList: [StoatChannel] = memberServers.flatMap { $0.channels.compactMap { channels[$0] } }
        var seenChannels = Set(channelList.map(\.id))
        for channelID in channelOrder {
            guard !seenChannels.contains(channelID), let channel = channels[channelID],
                channel.recipients.contains(userID)
            else { continue }
            channelList.append(channel)
            seenChannels.insert(channelID)
        }
        var payload = ReadyPayload()
        if filter.includes("users") {
            var seen: Set<String> = [userID]
            var list: [StoatUser] = users[userID].map { [$0.seen(by: userID)] } ?? []
            let related = serverIDs.flatMap { memberIDsByServer[$0] ?? [] } + channelList.flatMap(\.recipients)
            for id in related where !seen.contains(id) {
                seen.insert(id)
                if let user = users[id] { list.append(user) }
            }
            payload.users = list
        }
        if filter.includes("servers") { payload.servers = memberServers }
        if filter.includes("channels") { payload.channels = channelList }
        if filter.includes("members") {
            payload.members = serverIDs.compactMap { members[StoatMember.Key(server: $0, user: userID)] }
        }
        if filter.includes("emojis") {
            payload.emojis = serverIDs.flatMap { (emojiIDsByServer[$0] ?? []).compactMap { emojis[$0] } }
        }
        payload.includesEmptyExtras = filter.fields.intersection([
            "voice_states", "user_settings", "channel_unreads", "policy_changes",
        ])
        return payload
    }

    private func deliverReady(_ buffer: ByteBuffer, connectionID: Int) {
        guard let connection = connections[connectionID], connection.record.isAuthenticated,
            let token = connection.record.token, sessions[token] != nil
        else { return }
        connection.socket.outbound.yield(.text(buffer))
        connections[connectionID]?.record.receivedReady = true
        changed()
    }

    private func fanOutTyping(started: Bool, channelID: String, userID: String) {
        guard let channel = channels[channelID] else { return }
        let audience: Set<String>
        if let serverID = channel.serverID {
            audience = Set(memberIDsByServer[serverID] ?? [])
        } else {
            audience = Set(channel.recipients)
        }
        guard audience.contains(userID) else { return }
        let frame = ServerEvent.typing(started: started, channel: channelID, user: userID)
        for connection in connections.values {
            guard connection.record.receivedReady, let other = connection.record.userID, other != userID,
                audience.contains(other)
            else { continue }
            connection.socket.send(frame)
        }
    }

    /// Closes every socket with a close frame (the server is stopping).
    func closeAllSockets(code: WebSocketErrorCode) {
        for connection in connections.values {
            connection.socket.outbound.yield(.close(code: code, reason: nil))
        }
    }

    // MARK: Observation

    func connectionRecords() -> [ConnectionRecord] {
        (closedRecords + connections.values.map(\.record)).sorted { $0.id < $1.id }
    }

    func counters() -> SocketCounters {
        SocketCounters(
            upgradesAccepted: upgradesAccepted, upgradesRefused: upgradesRefused, liveSockets: connections.count)
    }

    func liveSockets(token: String) -> Int {
        connections.values.count { $0.record.token == token }
    }

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

    private func changed() {
        for observer in observers.values { observer.yield() }
    }
}

/// A decoded `POST /auth/session/login` body.
struct LoginRequest: Sendable, Decodable {
    enum MFAResponse: Sendable, Decodable {
        case password(String)
        case recovery(String)
        case totp(String)

        enum CodingKeys: String, CodingKey {
            case password
            case recoveryCode = "recovery_code"
            case totpCode = "totp_code"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let value = try container.decodeIfPresent(String.self, forKey: .totpCode) {
                self = .totp(value)
            } else if let value = try container.decodeIfPresent(String.self, forKey: .recoveryCode) {
                self = .recovery(value)
            } else {
                self = .password(try container.decode(String.self, forKey: .password))
            }
        }
    }

    var email: String?
    var password: String?
    var friendlyName: String?
    var mfaTicket: String?
    var mfaResponse: MFAResponse?

    enum CodingKeys: String, CodingKey {
        case email, password
        case friendlyName = "friendly_name"
        case mfaTicket = "mfa_ticket"
        case mfaResponse = "mfa_response"
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
