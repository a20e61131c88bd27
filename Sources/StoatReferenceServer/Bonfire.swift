#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The data of a Bonfire `Ping`, echoed in its `Pong`: a non-negative integer or an array of bytes, as Stoat
/// accepts. Any other data gets no `Pong`.
public enum PingData: Sendable, Equatable {
    /// A non-negative integer (clients send milliseconds).
    case number(UInt64)
    /// An array of bytes.
    case bytes([UInt8])

    /// Reads `data` as Stoat does; nil when it is neither a non-negative integer nor an array of bytes.
    static func validated(_ data: JSONValue?) -> PingData? {
        switch data {
        case .integer(let value) where value >= 0:
            return .number(UInt64(value))
        case .unsigned(let value):
            return .number(value)
        case .array(let elements):
            var bytes: [UInt8] = []
            for element in elements {
                guard case .integer(let value) = element, let byte = UInt8(exactly: value) else { return nil }
                bytes.append(byte)
            }
            return .bytes(bytes)
        default:
            return nil
        }
    }
}

/// A frame a client sent on the events socket, as the server understands it.
///
/// Pure parsing: malformed JSON, a missing or mistyped field and unknown types become cases, never errors,
/// so a misbehaving client can only affect its own connection.
enum ClientFrame: Sendable, Equatable {
    case authenticate(token: String)
    case ping(PingData)
    /// A `Ping` whose data is not a non-negative integer or byte array: Stoat answers nothing.
    case pingWithInvalidData
    case subscribe(serverID: String)
    case beginTyping(channel: String)
    case endTyping(channel: String)
    case unknown(type: String)
    case malformed

    init(text: String) {
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8)),
            let type = object["type"]?.stringValue
        else {
            self = .malformed
            return
        }
        switch type {
        case "Authenticate":
            self = object["token"]?.stringValue.map { .authenticate(token: $0) } ?? .malformed
        case "Ping":
            self = PingData.validated(object["data"]).map { .ping($0) } ?? .pingWithInvalidData
        case "Subscribe":
            self = object["server_id"]?.stringValue.map { .subscribe(serverID: $0) } ?? .malformed
        case "BeginTyping":
            self = object["channel"]?.stringValue.map { .beginTyping(channel: $0) } ?? .malformed
        case "EndTyping":
            self = object["channel"]?.stringValue.map { .endTyping(channel: $0) } ?? .malformed
        default:
            self = .unknown(type: type)
        }
    }
}

/// The error kinds Stoat sends over REST and the socket, with the HTTP status each answers with.
public struct StoatErrorKind: Sendable, Hashable, CustomStringConvertible {
    /// The wire name (`"InvalidSession"`, …).
    public let name: String
    /// The HTTP status it answers with over REST.
    public let status: Int

    /// Creates an error kind.
    public init(name: String, status: Int) {
        self.name = name
        self.status = status
    }

    /// The wire name.
    public var description: String { name }

    /// The session token is unknown or its user cannot use it (401).
    public static let invalidSession = StoatErrorKind(name: "InvalidSession", status: 401)
    /// No session was given (401).
    public static let notAuthenticated = StoatErrorKind(name: "NotAuthenticated", status: 401)
    /// Wrong email or password (401).
    public static let invalidCredentials = StoatErrorKind(name: "InvalidCredentials", status: 401)
    /// A wrong MFA ticket, TOTP code or recovery code (401).
    public static let invalidToken = StoatErrorKind(name: "InvalidToken", status: 401)
    /// The email address is not verified yet (403).
    public static let unverifiedAccount = StoatErrorKind(name: "UnverifiedAccount", status: 403)
    /// Too many wrong passwords (403).
    public static let lockedOut = StoatErrorKind(name: "LockedOut", status: 403)
    /// The password appears in a breach list (400).
    public static let compromisedPassword = StoatErrorKind(name: "CompromisedPassword", status: 400)
    /// Stoat's abuse shield refused the request (400).
    public static let blockedByShield = StoatErrorKind(name: "BlockedByShield", status: 400)
    /// The captcha was missing or wrong (400).
    public static let captchaFailed = StoatErrorKind(name: "CaptchaFailed", status: 400)
    /// The username is in use (409).
    public static let usernameTaken = StoatErrorKind(name: "UsernameTaken", status: 409)
    /// The user finished onboarding already (403).
    public static let alreadyOnboarded = StoatErrorKind(name: "AlreadyOnboarded", status: 403)
    /// The request body is invalid (400).
    public static let failedValidation = StoatErrorKind(name: "FailedValidation", status: 400)
    /// Something broke on the server (500).
    public static let internalError = StoatErrorKind(name: "InternalError", status: 500)
    /// The thing asked for does not exist (404).
    public static let notFound = StoatErrorKind(name: "NotFound", status: 404)
}

/// Which Ready fields a connection asked for with repeated `ready=<field>` query items.
///
/// No `ready` item means every field. Unknown names are ignored; `user_settings[…]` asks for `user_settings`.
public struct ReadyFilter: Sendable, Equatable {
    /// The fields a Ready carries when no filter is given.
    public static let allFields: Set<String> = [
        "users", "servers", "channels", "members", "emojis", "voice_states", "channel_unreads", "policy_changes",
    ]
    /// Every field Ready may carry.
    static let knownFields = allFields.union(["user_settings"])

    /// The fields to send.
    public let fields: Set<String>

    /// A filter from the values of the `ready` query items (empty: everything).
    public init(queryValues: [String]) {
        if queryValues.isEmpty {
            fields = Self.allFields
        } else {
            fields = Set(
                queryValues.compactMap { value in
                    let name = value.hasPrefix("user_settings") ? "user_settings" : value
                    return Self.knownFields.contains(name) ? name : nil
                })
        }
    }

    /// Whether `field` is sent.
    public func includes(_ field: String) -> Bool { fields.contains(field) }
}

/// The Ready event's content: what the server knows that the user may see, cut by a ``ReadyFilter``.
struct ReadyPayload: Sendable, Encodable {
    var users: [StoatUser]?
    var servers: [StoatServer]?
    var channels: [StoatChannel]?
    var members: [StoatMember]?
    var emojis: [StoatEmoji]?
    var includesEmptyExtras: Set<String> = []

    enum CodingKeys: String, CodingKey {
        case type, users, servers, channels, members, emojis
        case voiceStates = "voice_states"
        case userSettings = "user_settings"
        case channelUnreads = "channel_unreads"
        case policyChanges = "policy_changes"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("Ready", forKey: .type)
        try container.encodeIfPresent(users, forKey: .users)
        try container.encodeIfPresent(servers, forKey: .servers)
        try container.encodeIfPresent(channels, forKey: .channels)
        try container.encodeIfPresent(members, forKey: .members)
        try container.encodeIfPresent(emojis, forKey: .emojis)
        if includesEmptyExtras.contains("voice_states") { try container.encode([String](), forKey: .voiceStates) }
        if includesEmptyExtras.contains("user_settings") {
            try container.encode([String: String](), forKey: .userSettings)
        }
        if includesEmptyExtras.contains("channel_unreads") {
            try container.encode([String](), forKey: .channelUnreads)
        }
        if includesEmptyExtras.contains("policy_changes") {
            try container.encode([String](), forKey: .policyChanges)
        }
    }

    /// The JSON text of the Ready frame, padded with synthetic users to at least `minimumBytes` when given.
    ///
    /// The padding keeps the frame valid Stoat JSON: it is more users, with ids starting `PADDING`.
    func encoded(minimumBytes: Int?) throws -> Data {
        let encoder = JSONEncoder()
        let plain = try encoder.encode(self)
        guard let minimumBytes, plain.count < minimumBytes else { return plain }
        let sample = StoatUser(id: "PADDING00000000000000000000", username: "padding-user-000000")
        let perUser = try encoder.encode(sample).count + 1
        let count = (minimumBytes - plain.count) / perUser + 1
        var padded = self
        padded.users =
            (users ?? [])
            + (0..<count).map { index in
                let number = String(index)
                let suffix = String(repeating: "0", count: max(0, 6 - number.count)) + number
                let idSuffix = String(repeating: "0", count: max(0, 20 - number.count)) + number
                return StoatUser(id: "PADDING" + idSuffix, username: "padding-user-" + suffix)
            }
        return try encoder.encode(padded)
    }
}

/// The frames the server sends, as JSON text with `type` first, as Stoat writes them.
enum ServerEvent {
    static let authenticated = #"{"type":"Authenticated"}"#
    static let logout = #"{"type":"Logout"}"#

    static func pong(_ data: PingData) -> String {
        switch data {
        case .number(let value):
            #"{"type":"Pong","data":\#(value)}"#
        case .bytes(let bytes):
            #"{"type":"Pong","data":[\#(bytes.map(String.init).joined(separator: ","))]}"#
        }
    }

    static func error(_ kind: StoatErrorKind, location: String) -> String {
        #"{"type":"Error","data":{"type":\#(quoted(kind.name)),"location":\#(quoted(location))}}"#
    }

    static func typing(started: Bool, channel: String, user: String) -> String {
        let type = started ? "ChannelStartTyping" : "ChannelStopTyping"
        return #"{"type":"\#(type)","id":\#(quoted(channel)),"user":\#(quoted(user))}"#
    }

    static func operationFinished(id: String, result: OperationResult) -> String {
        #"{"type":"OperationFinished","id":\#(quoted(id)),"result":\#(quoted(result.rawValue))}"#
    }

    /// A JSON string literal for `value`, escaped as JSON requires.
    static func quoted(_ value: String) -> String {
        // Encoding a String cannot fail.
        String(decoding: (try? JSONEncoder().encode(value)) ?? Data(#""""#.utf8), as: UTF8.self)
    }
}
