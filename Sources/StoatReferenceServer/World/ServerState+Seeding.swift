#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The small world every server starts with: a lobby server the default user owns, with a bot in it.
struct SeededWorld: Sendable {
    var defaultAccount: SeededAccount
    var pendingAccount: SeededAccount
    var defaultBot: SeededBot
    var lobbyServerID: String
    var lobbyChannelID: String
}

/// The seeding facet: the default world and generated datasets.
extension ServerState {
    /// Seeds the default and pending accounts, the lobby and its bot, or finds them in persisted data.
    func seedDefaults(
        defaultCredentials: (email: String, password: String),
        pendingCredentials: (email: String, password: String)
    ) throws(ReferenceServerError) -> SeededWorld {
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
            upsert(user: StoatUser(id: main.id, username: "demo", discriminator: "0001"))
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
            upsert(member: StoatMember(serverID: lobbyID, userID: main.id, joinedAt: now()))
            upsert(
                emoji: StoatEmoji(
                    id: Identifiers.ulid(at: now()), serverID: lobbyID, creatorID: main.id, name: "lifeline"))
        }
        let mainToken = anyToken(userID: main.id) ?? createSession(userID: main.id, name: "lifeline serve").token

        let bot: SeededBot
        if let record = bots.values.first(where: { $0.owner == main.id }) {
            bot = SeededBot(userID: record.id, ownerID: main.id, token: record.token)
        } else {
            bot = try addBot(username: "lifeline-bot", ownerID: main.id)
            upsert(member: StoatMember(serverID: lobbyID, userID: bot.userID, joinedAt: now()))
        }

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
            defaultBot: bot,
            lobbyServerID: lobbyID,
            lobbyChannelID: generalID
        )
    }

    /// Generates servers with channels, members (new users, some of them friends with a direct message) and
    /// emojis, `memberUserID` owning and a member of each.
    func seedDataset(_ shape: DatasetShape, memberUserID: String) throws -> [String] {
        let joined = now()
        var newUsers: [StoatUser] = []
        var newServers: [StoatServer] = []
        var newChannels: [StoatChannel] = []
        var newMembers: [StoatMember] = []
        var newEmojis: [StoatEmoji] = []
        var friends: [String] = []
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
                    description: "A generated community for load tests", channels: channelIDs))
            newMembers.append(StoatMember(serverID: serverID, userID: memberUserID, joinedAt: joined))
            for memberIndex in 0..<shape.membersPerServer {
                let userID = Identifiers.ulid(at: now())
                let name =
                    "\(adjectives[memberIndex % 8])_\(nouns[(memberIndex / 8) % 8])_\(serverIndex)_\(memberIndex)"
                var user = StoatUser(
                    id: userID, username: name, discriminator: UsernameRule.fourDigits(1000 + memberIndex % 9000),
                    displayName: "User \(serverIndex)-\(memberIndex)")
                if memberIndex < shape.friendsPerServer {
                    user.relations = [.init(id: memberUserID, status: "Friend")]
                    friends.append(userID)
                    newChannels.append(
                        .directMessage(
                            id: Identifiers.ulid(at: now()), active: true, recipients: [memberUserID, userID]))
                }
                newUsers.append(user)
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
        if !friends.isEmpty, var member = users[memberUserID] {
            member.relations += friends.map { .init(id: $0, status: "Friend") }
            newUsers.append(member)
        }
        try bulkInsert(
            users: newUsers, servers: newServers, channels: newChannels, members: newMembers, emojis: newEmojis)
        return newServers.map(\.id)
    }
}
