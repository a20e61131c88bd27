#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The small world every server starts with: a lobby server the default user is a member of.
struct SeededWorld: Sendable {
    var defaultAccount: SeededAccount
    var pendingAccount: SeededAccount
    var lobbyServerID: String
    var lobbyChannelID: String
}

extension ServerState {
    /// Seeds the default and pending accounts and the lobby, or finds them in persisted data.
    func seedDefaults(
        defaultCredentials: (email: String, password: String),
        pendingCredentials: (email: String, password: String)
    ) throws(APIError) -> SeededWorld {
        let existing = account(email: defaultCredentials.email)
        let main: Account
        if let existing {
            main = existing
        } else {
            main = try createAccount(
                email: defaultCredentials.email, password: defaultCredentials.password, verified: true,
                totpSecret: nil, recoveryCodes: [])
        }
        if user(id: main.id) == nil {
            upsert(user: StoatUser(id: main.id, username: "demo", discriminator: "0001", online: true))
        }
        let lobbyID = "LOBBY" + main.id.dropFirst(5)
        let generalID = "GENERAL" + main.id.dropFirst(7)
        if existing == nil {
            upsert(server: StoatServer(id: lobbyID, owner: main.id, name: "Lifeline Lobby", channels: []))
            upsert(channel: .textChannel(id: generalID, server: lobbyID, name: "general", description: "Say hello"))
            upsert(
                channel: .textChannel(
                    id: Identifiers.ulid(at: now()), server: lobbyID, name: "random", description: nil))
            upsert(channel: .savedMessages(id: Identifiers.ulid(at: now()), user: main.id))
            upsert(member: StoatMember(serverID: lobbyID, userID: main.id, joinedAt: StoatTimestamp.string(now())))
            upsert(
                emoji: StoatEmoji(
                    id: Identifiers.ulid(at: now()), serverID: lobbyID, creatorID: main.id, name: "lifeline"))
        }
        let mainToken = anyToken(userID: main.id) ?? createSession(userID: main.id, name: "lifeline serve").token

        let pending: Account
        if let found = account(email: pendingCredentials.email) {
            pending = found
        } else {
            pending = try createAccount(
                email: pendingCredentials.email, password: pendingCredentials.password, verified: true,
                totpSecret: nil, recoveryCodes: [])
        }
        let pendingToken =
            anyToken(userID: pending.id) ?? createSession(userID: pending.id, name: "lifeline serve").token
        return SeededWorld(
            defaultAccount: SeededAccount(
                email: main.email, password: defaultCredentials.password, token: mainToken, userID: main.id),
            pendingAccount: SeededAccount(
                email: pending.email, password: pendingCredentials.password, token: pendingToken,
                userID: pending.id),
            lobbyServerID: lobbyID,
            lobbyChannelID: generalID
        )
    }

    /// Generates servers with channels, members (new users) and emojis, the default user a member of each.
    func seedDataset(_ shape: DatasetShape, memberUserID: String) throws -> [String] {
        let joined = StoatTimestamp.string(now())
        var newUsers: [StoatUser] = []
        var newServers: [StoatServer] = []
        var newChannels: [StoatChannel] = []
        var newMembers: [StoatMember] = []
        var newEmojis: [StoatEmoji] = []
        let adjectives = ["quiet", "bright", "rapid", "gentle", "bold", "clever", "lucky", "sunny"]
        let nouns = ["otter", "falcon", "maple", "harbor", "comet", "meadow", "lantern", "river"]
        for serverIndex in 0..<shape.servers {
            let serverID = Identifiers.ulid(at: now())
            var channelIDs: [String] = []
            for channelIndex in 0..<shape.channelsPerServer {
                let channelID = Identifiers.ulid(at: now())
                channelIDs.append(channelID)
                newChannels.append(
                    .textChannel(
                        id: channelID, server: serverID, name: "channel-\(channelIndex)",
                        description: "Talk about topic \(channelIndex) of community \(serverIndex)"))
            }
            newServers.append(
                StoatServer(
                    id: serverID, owner: memberUserID, name: "Community \(serverIndex)",
                    description: "A generated community for load tests", channels: channelIDs,
                    defaultPermissions: 4_000_000_000))
            newMembers.append(StoatMember(serverID: serverID, userID: memberUserID, joinedAt: joined))
            for memberIndex in 0..<shape.membersPerServer {
                let userID = Identifiers.ulid(at: now())
                let name =
                    "\(adjectives[memberIndex % 8])_\(nouns[(memberIndex / 8) % 8])_\(serverIndex)_\(memberIndex)"
                newUsers.append(
                    StoatUser(
                        id: userID, username: name, discriminator: String(1000 + memberIndex % 9000),
                        displayName: "User \(serverIndex)-\(memberIndex)", online: memberIndex % 3 == 0))
                newMembers.append(
                    StoatMember(
                        serverID: serverID, userID: userID, joinedAt: joined,
                        nickname: memberIndex % 4 == 0 ? "nick\(memberIndex)" : nil))
            }
            for emojiIndex in 0..<shape.emojisPerServer {
                newEmojis.append(
                    StoatEmoji(
                        id: Identifiers.ulid(at: now()), serverID: serverID, creatorID: memberUserID,
                        name: "emoji_\(serverIndex)_\(emojiIndex)", animated: emojiIndex % 5 == 0))
            }
        }
        try bulkInsert(
            users: newUsers, servers: newServers, channels: newChannels, members: newMembers, emojis: newEmojis)
        return newServers.map(\.id)
    }
}
