#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension ReferenceServer {
    /// Adds an account with a live session; onboarded (with a user named `username` and a free discriminator)
    /// unless `username` is nil.
    ///
    /// - Parameters:
    ///   - email: The login email; must be new.
    ///   - password: The login password.
    ///   - username: The user's name, or nil to leave the account to onboard.
    ///   - verified: Whether the email is verified; a login to an unverified account answers `UnverifiedAccount`.
    ///   - totpSecret: A TOTP secret, making logins answer `MFA` (see ``TOTP``).
    ///   - recoveryCodes: Single-use recovery codes, accepted by an MFA ticket when TOTP is set too (as in
    ///     stoatchat, recovery codes alone do not enable MFA).
    /// - Returns: The account's credentials, a session token and its user id.
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/emailTaken`` when the email is taken.
    public func addAccount(
        email: String, password: String, username: String?, verified: Bool = true, totpSecret: [UInt8]? = nil,
        recoveryCodes: [String] = []
    ) async throws(ReferenceServerError) -> SeededAccount {
        try await state.addUser(
            email: email, password: password, username: username, verified: verified, totpSecret: totpSecret,
            recoveryCodes: recoveryCodes)
    }

    /// Adds an onboarded user with a generated email and password and a live session.
    ///
    /// - Parameter username: The user's name; a free discriminator is picked for it.
    /// - Returns: The account's credentials, a session token and its user id.
    /// - Throws: ``ReferenceServerError`` when the data file cannot be written.
    public func addUser(username: String) async throws(ReferenceServerError) -> SeededAccount {
        let suffix = Identifiers.token().prefix(10).lowercased()
        return try await addAccount(
            email: "\(username.lowercased())-\(suffix)@lifeline.test", password: Identifiers.token(), username: username
        )
    }

    /// Adds a bot owned by `ownerID`, with a bot token for `X-Bot-Token` and the events socket.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown owner.
    public func addBot(username: String, ownerID: String) async throws(ReferenceServerError) -> SeededBot {
        try await state.addBot(username: username, ownerID: ownerID)
    }

    /// Opens another session for `userID` and returns its token.
    public func createSession(userID: String, name: String = "seed") async -> String {
        await state.createSession(userID: userID, name: name).token
    }

    /// Adds or replaces a user, silently (no event).
    public func addUser(_ user: StoatUser) async {
        await state.upsert(user: user)
    }

    /// Adds or replaces a server, silently. Members are added with ``addMember(_:)`` or ``join(userID:serverID:)``.
    public func addServer(_ server: StoatServer) async {
        await state.upsert(server: server)
    }

    /// Adds or replaces a channel, silently; a text channel is appended to its server's `channels`.
    public func addChannel(_ channel: StoatChannel) async {
        await state.upsert(channel: channel)
    }

    /// Adds or replaces a membership, silently.
    public func addMember(_ member: StoatMember) async {
        await state.upsert(member: member)
    }

    /// Adds or replaces an emoji, silently.
    public func addEmoji(_ emoji: StoatEmoji) async {
        await state.upsert(emoji: emoji)
    }

    /// Generates a realistic dataset: servers with text channels, members (new users, some of them friends
    /// with a direct message) and emojis, with `userID` (the default user when nil) owning and in every server,
    /// so that their Ready grows with it.
    ///
    /// Use ``DatasetShape/approximateReadyBytes(_:)`` for a Ready of a given size (1 MB, 5 MB).
    ///
    /// - Returns: The ids of the generated servers.
    /// - Throws: ``ReferenceServerError`` when the data file cannot be written.
    @discardableResult
    public func seedDataset(
        _ shape: DatasetShape, for userID: String? = nil
    ) async throws(ReferenceServerError)
        -> [String]
    {
        do {
            return try await state.seedDataset(shape, memberUserID: userID ?? defaultAccount.userID)
        } catch {
            throw ReferenceServerError(code: .storage, message: "The dataset could not be written", cause: error)
        }
    }

    /// The frame of the Ready `userID` would receive now from bonfire (without the size fault), for benchmarks
    /// and checks: its JSON text, or its MessagePack (`format=msgpack`, as `rmp_serde::to_vec_named` writes it).
    ///
    /// - Parameters:
    ///   - userID: The user whose Ready it is.
    ///   - readyFields: The `ready` query values to filter by; empty for stoatchat's default fields.
    ///   - messagePack: Whether to return the MessagePack frame rather than the JSON one.
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown user.
    public func readyFrame(
        for userID: String, readyFields: [String] = [], messagePack: Bool = false
    ) async throws(ReferenceServerError)
        -> Data
    {
        guard let payload = await state.readyPayload(userID: userID, filter: ReadyFilter(queryValues: readyFields))
        else { throw ReferenceServerError(code: .notFound, message: "No user \(userID)") }
        return messagePack
            ? Data(payload.wire.messagePack(binaryStrings: false)) : Data(payload.encoded(minimumBytes: nil))
    }
}
