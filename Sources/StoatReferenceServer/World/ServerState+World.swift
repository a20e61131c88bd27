#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The world facet: what other people do on a real server — join and leave, time out, befriend, open direct
/// messages, create channels, set a slowmode, change a profile — each with the events stoatchat publishes for
/// it, so that a test can stage a several-user world through ``ReferenceServer`` or the admin API.
extension ServerState {
    /// An account with an onboarded user (a free discriminator for `username`) and a live session.
    func addUser(
        email: String, password: String, username: String?, verified: Bool, totpSecret: [UInt8]?,
        recoveryCodes: [String]
    ) throws(ReferenceServerError) -> SeededAccount {
        let account = try createAccount(
            email: email, password: password, verified: verified, totpSecret: totpSecret,
            recoveryCodes: recoveryCodes)
        if let username {
            let discriminator = freeDiscriminator(for: username) ?? "0001"
            upsert(user: StoatUser(id: account.id, username: username, discriminator: discriminator))
        }
        let session = createSession(userID: account.id, name: "seed")
        return SeededAccount(email: email, password: password, token: session.token, userID: account.id)
    }

    /// A bot user owned by `ownerID`, with its token (stoatchat's bots have no account).
    func addBot(username: String, ownerID: String) throws(ReferenceServerError) -> SeededBot {
        guard users[ownerID] != nil else {
            throw ReferenceServerError(code: .notFound, message: "No user \(ownerID) to own the bot")
        }
        let id = Identifiers.ulid(at: now())
        let bot = BotRecord(id: id, owner: ownerID, token: Identifiers.token())
        bots[id] = bot
        botIDByToken[bot.token] = id
        persist(.bot, id: id, bot)
        let discriminator = freeDiscriminator(for: username) ?? "0001"
        upsert(user: StoatUser(id: id, username: username, discriminator: discriminator, botOwner: ownerID))
        changed()
        return SeededBot(userID: id, ownerID: ownerID, token: bot.token)
    }

    /// Makes `userID` a member of `serverID` (stoatchat's `Member::create`): `ServerMemberJoin` to the server,
    /// then `ServerCreate` to the new member, whose sockets then listen to the server and its channels.
    @discardableResult
    func join(userID: String, serverID: String) throws(ReferenceServerError) -> StoatMember {
        guard let user = users[userID] else {
            throw ReferenceServerError(code: .notFound, message: "No user \(userID)")
        }
        guard let server = servers[serverID] else {
            throw ReferenceServerError(code: .notFound, message: "No server \(serverID)")
        }
        guard member(server: serverID, user: userID) == nil else {
            throw ReferenceServerError(
                code: .refused, message: "\(userID) is already a member", stoatError: .alreadyInServer)
        }
        let member = StoatMember(serverID: serverID, userID: userID, joinedAt: now())
        upsert(member: member)
        publish(.serverMemberJoin(server: serverID, user: userID, member: member), to: [serverID])
        let visible = server.channels.compactMap { channels[$0] }.filter { canView(user, $0) }
        let serverEmojis = (emojiIDsByServer[serverID] ?? []).compactMap { emojis[$0] }
        publish(.serverCreate(view(server), channels: visible, emojis: serverEmojis), to: ["\(userID)!"])
        return member
    }

    /// Removes `userID` from `serverID` (stoatchat's `Member::remove`): `ServerMemberLeave` with the reason
    /// (`Leave`, `Kick` or `Ban`) to the server, whose sockets of the user then stop listening to it.
    func removeMember(userID: String, serverID: String, reason: String) throws(ReferenceServerError) {
        guard member(server: serverID, user: userID) != nil else {
            throw ReferenceServerError(code: .notFound, message: "\(userID) is not a member of \(serverID)")
        }
        removeMember(StoatMember.Key(server: serverID, user: userID))
        publish(.serverMemberLeave(server: serverID, user: userID, reason: reason), to: [serverID])
    }

    /// A user starts or stops typing in a channel, as their own socket's `BeginTyping`/`EndTyping` would: the
    /// channel's viewers receive `ChannelStartTyping` or `ChannelStopTyping`.
    func setTyping(userID: String, channelID: String, typing: Bool) throws(ReferenceServerError) {
        guard user(id: userID) != nil, channels[channelID] != nil else {
            throw ReferenceServerError(code: .notFound, message: "no user \(userID) or channel \(channelID)")
        }
        publish(
            typing
                ? .channelStartTyping(channel: channelID, user: userID)
                : .channelStopTyping(channel: channelID, user: userID), to: [channelID])
    }

    /// Times a member out until `until` (stoatchat's `Member::update`), or clears the timeout when nil:
    /// `ServerMemberUpdate` with `data.timeout`, or with `clear: ["Timeout"]`.
    func setTimeout(userID: String, serverID: String, until: Date?) throws(ReferenceServerError) {
        guard var member = member(server: serverID, user: userID) else {
            throw ReferenceServerError(code: .notFound, message: "\(userID) is not a member of \(serverID)")
        }
        member.timeout = until
        upsert(member: member)
        let data: Wire = until.map { .object(["timeout": .timestamp($0)]) } ?? .object([])
        publish(
            .serverMemberUpdate(server: serverID, user: userID, data: data, clear: until == nil ? ["Timeout"] : []),
            to: [serverID])
    }

    /// Makes two users friends (stoatchat's `apply_relationship`): each receives `UserRelationship` privately.
    func makeFriends(_ first: String, _ second: String) throws(ReferenceServerError) {
        guard var one = users[first], var other = users[second], first != second else {
            throw ReferenceServerError(code: .notFound, message: "Two distinct users are needed")
        }
        one.relations.removeAll { $0.id == second }
        one.relations.append(.init(id: second, status: "Friend"))
        other.relations.removeAll { $0.id == first }
        other.relations.append(.init(id: first, status: "Friend"))
        upsert(user: one)
        upsert(user: other)
        publish(.userRelationship(id: second, user: view(one, by: other)), to: ["\(second)!"])
        publish(.userRelationship(id: first, user: view(other, by: one)), to: ["\(first)!"])
    }

    /// Opens a direct message between two users (stoatchat's `create_dm`): active, announced to each as
    /// `ChannelCreate`. An existing one is returned as it is.
    func openDirectMessage(_ first: String, _ second: String) throws(ReferenceServerError) -> StoatChannel {
        guard users[first] != nil, users[second] != nil, first != second else {
            throw ReferenceServerError(code: .notFound, message: "Two distinct users are needed")
        }
        if let existing = channels.values.first(where: {
            $0.kind == .directMessage && Set($0.recipients) == [first, second]
        }) {
            return existing
        }
        let channel = StoatChannel.directMessage(
            id: Identifiers.ulid(at: now()), active: true, recipients: [first, second])
        upsert(channel: channel)
        for recipient in [first, second] { publish(.channelCreate(channel), to: ["\(recipient)!"]) }
        return channel
    }

    /// Creates a group owned by `owner` with `recipients` (the owner included), announced to each.
    func createGroup(name: String, owner: String, recipients: [String]) throws(ReferenceServerError) -> StoatChannel {
        let everyone = [owner] + recipients.filter { $0 != owner }
        guard everyone.allSatisfy({ users[$0] != nil }) else {
            throw ReferenceServerError(code: .notFound, message: "Every recipient must be a user")
        }
        let channel = StoatChannel.group(
            id: Identifiers.ulid(at: now()), name: name, owner: owner, recipients: everyone)
        upsert(channel: channel)
        for recipient in everyone { publish(.channelCreate(channel), to: ["\(recipient)!"]) }
        return channel
    }

    /// Creates a text channel in `serverID` (stoatchat's `create_server_channel`): `ServerUpdate` with the new
    /// channel list, then `ChannelCreate`, to the server.
    func addTextChannel(
        serverID: String, name: String, slowmode: UInt64?
    ) throws(ReferenceServerError)
        -> StoatChannel
    {
        guard servers[serverID] != nil else {
            throw ReferenceServerError(code: .notFound, message: "No server \(serverID)")
        }
        let channel = StoatChannel.textChannel(
            id: Identifiers.ulid(at: now()), server: serverID, name: name, description: nil, slowmode: slowmode)
        upsert(channel: channel)
        let list = servers[serverID]?.channels ?? []
        publish(.serverUpdate(id: serverID, data: .object(["channels": .strings(list)]), clear: []), to: [serverID])
        publish(.channelCreate(channel), to: [serverID])
        return channel
    }

    /// Sets or clears a text channel's slowmode (seconds): `ChannelUpdate` to the channel's server.
    func setSlowmode(channelID: String, seconds: UInt64?) throws(ReferenceServerError) {
        guard var channel = channels[channelID], let serverID = channel.serverID else {
            throw ReferenceServerError(code: .notFound, message: "No text channel \(channelID)")
        }
        channel.slowmode = seconds
        upsert(channel: channel)
        let data: Wire = seconds.map { .object(["slowmode": .uint($0)]) } ?? .object([])
        publish(.channelUpdate(id: channelID, data: data, clear: seconds == nil ? ["Slowmode"] : []), to: [serverID])
    }

    /// Sets or clears a user's display name (stoatchat's `User::update`): `UserUpdate` to the user and to the
    /// member events of their servers, which only sockets subscribed to those servers receive.
    func setDisplayName(userID: String, displayName: String?) throws(ReferenceServerError) {
        guard var user = users[userID] else {
            throw ReferenceServerError(code: .notFound, message: "No user \(userID)")
        }
        user.displayName = displayName
        upsert(user: user)
        let data: Wire = displayName.map { .object(["display_name": .string($0)]) } ?? .object([])
        publish(
            .userUpdate(
                id: userID, data: data, clear: displayName == nil ? ["DisplayName"] : [],
                eventID: Identifiers.ulid(at: now())),
            to: userTopics(userID))
    }

    /// Sends a message as `userID` by the same rules as `POST /channels/{id}/messages`.
    func postMessage(
        as userID: String, channelID: String, content: String, nonce: String?
    )
        throws(ReferenceServerError) -> StoatMessage
    {
        guard let user = users[userID] else {
            throw ReferenceServerError(code: .notFound, message: "No user \(userID)")
        }
        do {
            return try sendMessage(
                MessageSendRequest(content: content, nonce: nonce), to: channelID, as: user, idempotencyKey: nil
            ).message
        } catch {
            throw Self.refused(error)
        }
    }

    /// Edits a message as its author by the rules of `PATCH /channels/{id}/messages/{message}`.
    func editMessage(id: String, content: String) throws(ReferenceServerError) -> StoatMessage {
        guard let message = messages[id], let author = users[message.author] else {
            throw ReferenceServerError(code: .notFound, message: "No message \(id)")
        }
        do {
            _ = try editMessage(id, in: message.channel, content: content, as: author)
        } catch {
            throw Self.refused(error)
        }
        return messages[id] ?? message
    }

    /// Deletes a message as its author by the rules of `DELETE /channels/{id}/messages/{message}`.
    func deleteMessage(id: String) throws(ReferenceServerError) {
        guard let message = messages[id], let author = users[message.author] else {
            throw ReferenceServerError(code: .notFound, message: "No message \(id)")
        }
        do {
            try deleteMessage(id, in: message.channel, as: author)
        } catch {
            throw Self.refused(error)
        }
    }

    /// A rule's refusal as a ``ReferenceServerError``.
    static func refused(_ error: APIError) -> ReferenceServerError {
        ReferenceServerError(
            code: error.kind == .notFound ? .notFound : .refused, message: "Stoat answers \(error.kind.name)",
            stoatError: error.kind)
    }
}
