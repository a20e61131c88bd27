#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An account: what logs in. Its id is its user's id; the user exists once onboarding is complete.
struct Account: Sendable, Codable {
    var id: String
    var email: String
    var passwordHash: PasswordHash
    var verified = true
    var disabled = false
    var totpSecret: [UInt8]?
    var recoveryCodes: [String] = []
    var lockout = LoginLockout()

    /// The email as stoatchat matches it (see ``EmailAddress/normalised(_:)``).
    var normalisedEmail: String { EmailAddress.normalised(email) ?? email.lowercased() }

    /// Whether a login needs a second factor: stoatchat's MFA is active only with TOTP enabled.
    var hasMFA: Bool { totpSecret != nil }

    /// The second factors a ticket accepts, in stoatchat's order: `Totp` (and `Recovery` while codes remain)
    /// when TOTP is enabled, otherwise `Password`.
    var mfaMethods: [String] {
        guard hasMFA else { return ["Password"] }
        return recoveryCodes.isEmpty ? ["Totp"] : ["Totp", "Recovery"]
    }
}

/// A session: what a token stands for, and the Web Push subscription stoatchat keeps on it (so it ends with
/// the session).
struct SessionRecord: Sendable, Codable {
    var id: String
    var token: String
    var userID: String
    var name: String
    var lastSeen: Date
    /// The device's Web Push subscription (`POST /push/subscribe`), if any; optional so that data files written
    /// before it still decode.
    var subscription: PushSubscription?
}

/// A pending second factor after a correct password. Valid 5 minutes from its creation (its id's time), and
/// not consumed by a login, as stoatchat's login route leaves it.
struct MFATicket: Sendable {
    var id: String
    var accountID: String
    var friendlyName: String?
    var createdAt: Date
    /// The TOTP code at the ticket's creation, which the ticket accepts as well as the current one.
    var totpCodeAtCreation: String?
}

/// A bot: a user whose token is its own (`X-Bot-Token`), owned by another user.
struct BotRecord: Sendable, Codable {
    var id: String
    var owner: String
    var token: String
}

/// A user's saved settings: key → (revision timestamp, JSON text), stoatchat's `UserSettings`.
struct SettingsRecord: Sendable, Codable {
    var userID: String
    var values: [String: Entry]

    struct Entry: Sendable, Codable {
        var timestamp: Int64
        var value: String
    }
}

/// A user's read state of a channel (stoatchat's `ChannelUnread`): the last message they acknowledged, and the
/// unacknowledged messages that mention them. `lastID` and `mentions` are absent until set, as in MongoDB, so
/// they are left out of the answer until then.
struct UnreadRecord: Sendable, Codable, Equatable {
    var channel: String
    var user: String
    var lastID: String?
    var mentions: [String]?

    /// The record's key in the data file.
    var key: String { "\(channel):\(user)" }
}
