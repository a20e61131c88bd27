#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
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

    var hasMFA: Bool { totpSecret != nil || !recoveryCodes.isEmpty }
}

/// A session: what a token stands for.
struct SessionRecord: Sendable, Codable {
    var id: String
    var token: String
    var userID: String
    var name: String
    var lastSeen: Date
}

/// A pending second factor after a correct password.
struct MFATicket: Sendable {
    var accountID: String
    var friendlyName: String?
    var expiresAt: Date
}

/// A ready-to-use account the server seeded: its credentials, a live session token and its user id.
///
/// The password and token are secrets of a test fixture: print them only where a human asked for them
/// (`lifeline serve`), never log them.
public struct SeededAccount: Sendable, Equatable, CustomStringConvertible {
    /// The login email.
    public let email: String
    /// The login password.
    public let password: String
    /// A session token that is valid now.
    public let token: String
    /// The account's user id (the user exists only once onboarded).
    public let userID: String

    /// Creates a seeded account's description.
    public init(email: String, password: String, token: String, userID: String) {
        self.email = email
        self.password = password
        self.token = token
        self.userID = userID
    }

    /// The email and user id; the password and token are redacted.
    public var description: String {
        "SeededAccount(email: \(email), userID: \(userID), password: <redacted>, token: <redacted>)"
    }
}

/// A forced answer to the next login (see ``ReferenceServer/answerNextLogins(with:count:)``).
public struct LoginAnswer: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case error(StoatErrorKind)
        case mfa
        case disabled
    }

    let kind: Kind

    /// Answer with this error kind and its status code.
    public static func error(_ kind: StoatErrorKind) -> LoginAnswer { LoginAnswer(kind: .error(kind)) }
    /// Answer `{"result":"MFA",…}` with a ticket that the account's TOTP or recovery codes complete.
    public static let mfa = LoginAnswer(kind: .mfa)
    /// Answer `{"result":"Disabled","user_id":…}`.
    public static let disabled = LoginAnswer(kind: .disabled)
    /// Answer 400 `BlockedByShield`.
    public static let blockedByShield = LoginAnswer.error(.blockedByShield)
    /// Answer 403 `LockedOut`.
    public static let lockedOut = LoginAnswer.error(.lockedOut)
    /// Answer 401 `InvalidCredentials`.
    public static let invalidCredentials = LoginAnswer.error(.invalidCredentials)
    /// Answer 403 `UnverifiedAccount`.
    public static let unverifiedAccount = LoginAnswer.error(.unverifiedAccount)
}

/// One accepted events-socket connection, as the server saw it. Kept after it closes.
public struct ConnectionRecord: Sendable, Equatable {
    /// The connection's number: 1 for the first accepted since start, then 2, 3, …
    public let id: Int
    /// When it was accepted, in the server's clock.
    public let acceptedAt: Date
    /// The session token it authenticated with (or tried to), once known.
    public internal(set) var token: String?
    /// The user it authenticated as, once authenticated.
    public internal(set) var userID: String?
    /// Whether the socket is still open.
    public internal(set) var isOpen: Bool
    /// Whether `Authenticated` was sent.
    public internal(set) var isAuthenticated: Bool
    /// Whether `Ready` was sent.
    public internal(set) var receivedReady: Bool
    /// Every text frame the client sent, in order, verbatim (malformed ones included).
    public internal(set) var receivedFrames: [String]
    /// The server ids the client subscribed to, in order, without repeats.
    public internal(set) var subscriptions: [String]
}

/// Counts of the events socket's activity since the server started.
public struct SocketCounters: Sendable, Equatable {
    /// WebSocket upgrades accepted.
    public var upgradesAccepted: Int
    /// WebSocket upgrades refused by the ``ReferenceServer/refuseNextUpgrades(_:)`` fault.
    public var upgradesRefused: Int
    /// Sockets open now.
    public var liveSockets: Int
}

/// The shape of a generated dataset (see ``ReferenceServer/seedDataset(_:)``).
public struct DatasetShape: Sendable, Equatable {
    /// Servers the default user is a member of.
    public var servers: Int
    /// Text channels per server.
    public var channelsPerServer: Int
    /// Members per server besides the default user (each a distinct user).
    public var membersPerServer: Int
    /// Custom emojis per server.
    public var emojisPerServer: Int

    /// Creates a shape.
    public init(servers: Int, channelsPerServer: Int, membersPerServer: Int, emojisPerServer: Int) {
        self.servers = servers
        self.channelsPerServer = channelsPerServer
        self.membersPerServer = membersPerServer
        self.emojisPerServer = emojisPerServer
    }

    /// A shape whose Ready for the default user is about `bytes` long (within a few percent): servers of
    /// 20 channels, 200 members and 10 emojis, as many as the size needs (at least one).
    public static func approximateReadyBytes(_ bytes: Int) -> DatasetShape {
        // One such server adds about 36 kB to Ready (measured: users ≈ 150 B, channels ≈ 110 B, emojis ≈ 140 B).
        let perServer = 36_000
        return DatasetShape(
            servers: max(1, bytes / perServer), channelsPerServer: 20, membersPerServer: 200, emojisPerServer: 10)
    }
}
