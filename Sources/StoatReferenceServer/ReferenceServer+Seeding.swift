#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An error of the seeding API: the caller asked for something the data forbids.
public struct SeedingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public let message: String

    /// A human-readable message.
    public var description: String { message }
}

extension ReferenceServer {
    /// Adds an account with a live session; onboarded (with a user named `username`) unless `username` is nil.
    ///
    /// - Parameters:
    ///   - email: The login email; must be new.
    ///   - password: The login password.
    ///   - username: The user's name, or nil to leave the account to onboard.
    ///   - verified: Whether the email is verified; a login to an unverified account answers `UnverifiedAccount`.
    ///   - totpSecret: A TOTP secret, making logins answer `MFA` (see ``TOTP``).
    ///   - recoveryCodes: Single-use recovery codes, also making logins answer `MFA`.
    /// - Returns: The account's credentials, a session token and its user id.
    /// - Throws: ``SeedingError`` when the email is taken.
    public func addAccount(
        email: String, password: String, username: String?, verified: Bool = true, totpSecret: [UInt8]? = nil,
        recoveryCodes: [String] = []
    ) async throws -> SeededAccount {
        let account: Account
        do {
            account = try await state.createAccount(
                email: email, password: password, verified: verified, totpSecret: totpSecret,
                recoveryCodes: recoveryCodes)
        } catch {
            throw SeedingError(message: "The email \(email) is taken")
        }
        if let username {
            await state.upsert(user: StoatUser(id: account.id, username: username, online: true))
        }
        let session = await state.createSession(userID: account.id, name: "seed")
        return SeededAccount(email: email, password: password, token: session.token, userID: account.id)
    }

    /// Opens another session for `userID` and returns its token.
    public func createSession(userID: String, name: String = "seed") async -> String {
        await state.createSession(userID: userID, name: name).token
    }

    /// Adds or replaces a user.
    public func addUser(_ user: StoatUser) async {
        await state.upsert(user: user)
    }

    /// Adds or replaces a server. Members are added with ``addMember(_:)``.
    public func addServer(_ server: StoatServer) async {
        await state.upsert(server: server)
    }

    /// Adds or replaces a channel; a text channel is appended to its server's `channels`.
    public func addChannel(_ channel: StoatChannel) async {
        await state.upsert(channel: channel)
    }

    /// Adds or replaces a membership.
    public func addMember(_ member: StoatMember) async {
        await state.upsert(member: member)
    }

    /// Makes `userID` a member of `serverID`, joined now.
    public func join(userID: String, serverID: String) async {
        let joined = StoatTimestamp.string(await state.now())
        await state.upsert(member: StoatMember(serverID: serverID, userID: userID, joinedAt: joined))
    }

    /// Adds or replaces an emoji.
    public func addEmoji(_ emoji: StoatEmoji) async {
        await state.upsert(emoji: emoji)
    }

    /// Generates a realistic dataset: servers with text channels, members (new users) and emojis, with
    /// `userID` (the default user when nil) a member of every server, so that their Ready grows with it.
    ///
    /// Use ``DatasetShape/approximateReadyBytes(_:)`` for a Ready of a given size (1 MB, 5 MB).
    ///
    /// - Returns: The ids of the generated servers.
    /// - Throws: When the data file cannot be written.
    @discardableResult
    public func seedDataset(_ shape: DatasetShape, for userID: String? = nil) async throws -> [String] {
        try await state.seedDataset(shape, memberUserID: userID ?? defaultAccount.userID)
    }

    /// The JSON text of the Ready `userID` would receive now (without the size fault), for benchmarks and checks.
    ///
    /// - Parameter readyFields: The `ready` query values to filter by; empty for every field.
    public func readyFrame(for userID: String, readyFields: [String] = []) async throws -> Data {
        let payload = await state.readyPayload(userID: userID, filter: ReadyFilter(queryValues: readyFields))
        return try payload.encoded(minimumBytes: nil)
    }
}
