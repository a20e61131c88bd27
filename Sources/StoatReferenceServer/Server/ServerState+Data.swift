#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The data facet: what the server stores, how it is indexed and how it reaches the data file.
extension ServerState {
    /// Loads everything the data file holds (nothing without one).
    func loadPersisted() throws {
        guard let store else { return }
        for account in try store.all(.account, as: Account.self) {
            accounts[account.id] = account
            accountIDByEmail[account.normalisedEmail] = account.id
        }
        for session in try store.all(.session, as: SessionRecord.self) { sessions[session.token] = session }
        for bot in try store.all(.bot, as: BotRecord.self) {
            bots[bot.id] = bot
            botIDByToken[bot.token] = bot.id
        }
        for user in try store.all(.user, as: StoatUser.self) { insert(user) }
        for server in try store.all(.server, as: StoatServer.self) { insert(server) }
        for channel in try store.all(.channel, as: StoatChannel.self) { insert(channel) }
        for member in try store.all(.member, as: StoatMember.self) { insert(member) }
        for emoji in try store.all(.emoji, as: StoatEmoji.self) { insert(emoji) }
        for message in try store.all(.message, as: StoatMessage.self).sorted(by: { $0.id < $1.id }) {
            insert(message)
        }
        for record in try store.all(.settings, as: SettingsRecord.self) { settings[record.userID] = record }
        for record in try store.all(.unread, as: UnreadRecord.self) { insert(record) }
        for operation in try store.all(.operation, as: StoatOperation.self) { operations[operation.id] = operation }
        for record in try store.all(.file, as: FileRecord.self) {
            files[record.file.id] = record.file
            fileContents[record.file.id] = record.bytes
        }
    }

    // MARK: Persistence

    func persist(_ kind: PersistentStore.Kind, id: String, _ value: some Encodable) {
        guard let store else { return }
        do {
            try store.put(kind, id: id, value)
        } catch {
            logger.error("Could not persist a record", metadata: ["stoat.kind": "\(kind.rawValue)"])
        }
    }

    func unpersist(_ kind: PersistentStore.Kind, id: String) {
        guard let store else { return }
        do {
            try store.delete(kind, id: id)
        } catch {
            logger.error("Could not delete a record", metadata: ["stoat.kind": "\(kind.rawValue)"])
        }
    }

    // MARK: Indexes

    func insert(_ user: StoatUser) {
        if users.updateValue(user, forKey: user.id) == nil { userOrder.append(user.id) }
    }

    func insert(_ server: StoatServer) {
        if servers.updateValue(server, forKey: server.id) == nil { serverOrder.append(server.id) }
    }

    func insert(_ channel: StoatChannel) {
        if channels.updateValue(channel, forKey: channel.id) == nil { channelOrder.append(channel.id) }
    }

    func insert(_ member: StoatMember) {
        if members.updateValue(member, forKey: member.key) == nil {
            memberIDsByServer[member.serverID, default: []].append(member.userID)
            serverIDsByUser[member.userID, default: []].append(member.serverID)
        }
    }

    func insert(_ emoji: StoatEmoji) {
        if emojis.updateValue(emoji, forKey: emoji.id) == nil {
            emojiIDsByServer[emoji.serverID, default: []].append(emoji.id)
        }
    }

    func insert(_ record: UnreadRecord) {
        if unreads.updateValue(record, forKey: record.key) == nil {
            unreadKeysByUser[record.user, default: []].append(record.key)
        }
    }

    func upsert(unread record: UnreadRecord) {
        insert(record)
        persist(.unread, id: record.key, record)
    }

    func insert(_ message: StoatMessage) {
        if messages.updateValue(message, forKey: message.id) == nil {
            var ids = messageIDsByChannel[message.channel, default: []]
            if let last = ids.last, last > message.id {
                ids.insert(message.id, at: ids.firstIndex { $0 > message.id } ?? ids.endIndex)
            } else {
                ids.append(message.id)
            }
            messageIDsByChannel[message.channel] = ids
        }
    }

    // MARK: Writes

    func upsert(user: StoatUser) {
        insert(user)
        persist(.user, id: user.id, user)
    }

    func upsert(server: StoatServer) {
        insert(server)
        persist(.server, id: server.id, server)
    }

    /// Adds or replaces a channel; a server channel is appended to its server's `channels`.
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

    func upsert(message: StoatMessage) {
        insert(message)
        persist(.message, id: message.id, message)
    }

    func upsert(account: Account) {
        accounts[account.id] = account
        accountIDByEmail[account.normalisedEmail] = account.id
        persist(.account, id: account.id, account)
    }

    func removeMember(_ key: StoatMember.Key) {
        guard members.removeValue(forKey: key) != nil else { return }
        memberIDsByServer[key.server]?.removeAll { $0 == key.user }
        serverIDsByUser[key.user]?.removeAll { $0 == key.server }
        unpersist(.member, id: "\(key.server):\(key.user)")
    }

    func removeMessage(_ id: String) {
        guard let message = messages.removeValue(forKey: id) else { return }
        messageIDsByChannel[message.channel]?.removeAll { $0 == id }
        unpersist(.message, id: id)
    }

    /// Inserts many records at once and writes them in one transaction each (the dataset generator).
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

    // MARK: Reads

    func account(email: String) -> Account? {
        guard let normalised = EmailAddress.normalised(email) else { return nil }
        return accountIDByEmail[normalised].flatMap { accounts[$0] }
    }

    func user(id: String) -> StoatUser? { users[id] }

    func member(server: String, user: String) -> StoatMember? {
        members[StoatMember.Key(server: server, user: user)]
    }

    /// Whether the user has an authenticated socket past Ready (stoatchat's presence).
    func isOnline(_ userID: String) -> Bool {
        !(presence[userID] ?? []).isEmpty
    }

    /// `user` as `viewer` sees it now: relationship, relations and presence filled in.
    func view(_ user: StoatUser, by viewer: StoatUser?) -> StoatUser {
        user.seen(by: viewer, online: isOnline(user.id))
    }

    /// The server with its member count filled in.
    func view(_ server: StoatServer) -> StoatServer {
        var server = server
        server.approximateMemberCount = memberIDsByServer[server.id]?.count ?? 0
        return server
    }

    /// The channels `userID` has as direct messages (stoatchat's `find_direct_messages`): direct messages and
    /// groups they are a recipient of, and their saved notes, in creation order.
    func directMessages(of userID: String) -> [StoatChannel] {
        channelOrder.compactMap { channels[$0] }.filter { channel in
            switch channel.kind {
            case .directMessage, .group: channel.recipients.contains(userID)
            case .savedMessages: channel.user == userID
            default: false
            }
        }
    }

    /// An account's or bot's token holder: the first session of `userID`, oldest first.
    func anyToken(userID: String) -> String? {
        sessions.values.filter { $0.userID == userID }.min { $0.lastSeen < $1.lastSeen }?.token
    }

    func createAccount(
        email: String, password: String, verified: Bool, totpSecret: [UInt8]?, recoveryCodes: [String]
    ) throws(ReferenceServerError) -> Account {
        guard let normalised = EmailAddress.normalised(email) else {
            throw ReferenceServerError(code: .refused, message: "\(email) is not an email address")
        }
        guard accountIDByEmail[normalised] == nil else {
            throw ReferenceServerError(code: .emailTaken, message: "The email \(email) is taken")
        }
        let account = Account(
            id: Identifiers.ulid(at: now()), email: email, passwordHash: .make(password), verified: verified,
            totpSecret: totpSecret, recoveryCodes: recoveryCodes)
        upsert(account: account)
        return account
    }

    func createSession(userID: String, name: String) -> SessionRecord {
        let session = SessionRecord(
            id: Identifiers.ulid(at: now()), token: Identifiers.token(), userID: userID, name: name, lastSeen: now())
        sessions[session.token] = session
        persist(.session, id: session.token, session)
        changed()
        return session
    }

    /// A free discriminator for `username` (case-insensitive), chosen at random as stoatchat does; nil when
    /// every one is in use.
    func freeDiscriminator(for username: String) -> String? {
        let lowered = username.lowercased()
        let used = Set(users.values.filter { $0.username.lowercased() == lowered }.map(\.discriminator))
        return UsernameRule.discriminators.subtracting(used).randomElement()
    }
}
