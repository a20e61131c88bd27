#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A client frame as the Elixir gateway holds it after decoding (`decode_frame` in
/// `lib/stoat_gateway/web/socket_handler.ex`): Jason's terms for JSON, `msgpack-erlang`'s for MessagePack.
///
/// The difference that matters: Jason makes every JSON string a binary; `msgpack-erlang`, with the default
/// options the gateway calls it with, makes a `bin` a binary and a `str` a character list, which is not
/// what the handler's `%{"type" => type}` and `is_binary(token)` take.
indirect enum GatewayTerm: Sendable, Equatable {
    /// An Elixir binary (a string).
    case binary([UInt8])
    /// A character list (a MessagePack `str`).
    case charlist([UInt8])
    case integer(Int64)
    case unsigned(UInt64)
    case float(Double)
    case bool(Bool)
    case null
    case list([GatewayTerm])
    /// A map, later keys winning over earlier equal ones, as `maps:from_list` and Jason do.
    case map([(key: GatewayTerm, value: GatewayTerm)])
    /// Anything the handler never looks into (an extension value).
    case other

    static func == (lhs: GatewayTerm, rhs: GatewayTerm) -> Bool {
        switch (lhs, rhs) {
        case (.binary(let a), .binary(let b)), (.charlist(let a), .charlist(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.unsigned(let a), .unsigned(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null), (.other, .other): true
        case (.list(let a), .list(let b)): a == b
        case (.map(let a), .map(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The term Jason decodes `bytes` to, or nil when they are not JSON (`Jason.decode/1`).
    init?(json bytes: [UInt8]) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else { return nil }
        self.init(value)
    }

    private init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .integer(let value): self = .integer(value)
        case .unsigned(let value): self = .unsigned(value)
        case .number(let value): self = .float(value)
        case .string(let value): self = .binary(Array(value.utf8))
        case .array(let values): self = .list(values.map(GatewayTerm.init))
        case .object(let members):
            self = .map(members.keys.sorted().map { (key: .binary(Array($0.utf8)), value: GatewayTerm(members[$0]!)) })
        }
    }

    /// The term `msgpack:unpack/1` gives for `bytes` with its default options, or nil when they are not one
    /// MessagePack value.
    init?(messagePack bytes: [UInt8]) {
        guard let value = MessagePackValue(bytes: bytes) else { return nil }
        self.init(value)
    }

    private init(_ value: MessagePackValue) {
        switch value {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .integer(let value): self = .integer(value)
        case .unsigned(let value): self = .unsigned(value)
        case .double(let value): self = .float(value)
        case .str(let bytes): self = .charlist(bytes)
        case .bin(let bytes): self = .binary(bytes)
        case .array(let values): self = .list(values.map(GatewayTerm.init))
        case .map(let pairs): self = .map(pairs.map { (key: GatewayTerm($0.0), value: GatewayTerm($0.1)) })
        case .extension: self = .other
        }
    }

    /// The value of the binary key `key` in a map (the last one given), or nil.
    subscript(key: String) -> GatewayTerm? {
        guard case .map(let pairs) = self else { return nil }
        let name = GatewayTerm.binary(Array(key.utf8))
        return pairs.last { $0.key == name }?.value
    }

    /// The term as the server writes it back (a `Pong`'s `data`).
    var wire: Wire {
        switch self {
        case .binary(let bytes), .charlist(let bytes): .string(String(decoding: bytes, as: UTF8.self))
        case .integer(let value): .int(value)
        case .unsigned(let value): .uint(value)
        case .float(let value): .double(value)
        case .bool(let value): .bool(value)
        case .null, .other: .null
        case .list(let values): .array(values.map(\.wire))
        case .map(let pairs):
            .object(
                pairs.compactMap { pair in
                    guard case .binary(let key) = pair.key else { return nil }
                    return Wire.Field(key: String(decoding: key, as: UTF8.self), value: pair.value.wire)
                })
        }
    }
}

/// The `Ready` fields a gateway socket asked for (`StoatGateway.Web.ReadyFields` in
/// `lib/stoat_gateway/web/socket_handler.ex`).
///
/// Without `ready` items: users, servers, channels, members, emojis, voice states and policy changes, not
/// channel unreads. With them, only the named fields; `user_settings[KEY]` asks for a settings key (the
/// gateway sends them, unlike bonfire). An item the parser does not name and that matches
/// `^(\w+)(?:\[(\S+)\])?$` without a bracket (`ready=foo`, `ready=user_settings`) raises a `CaseClauseError`
/// in the socket's `init`, which ends the connection: ``init(queryValues:)`` is nil for it.
public struct GatewayReadyFields: Sendable, Equatable {
    /// The fields sent, by their wire names.
    public private(set) var fields: Set<String>
    /// The settings keys asked for with `user_settings[KEY]`.
    public private(set) var userSettings: [String] = []

    /// The fields without `ready` items.
    public static let defaultFields: Set<String> = [
        "users", "servers", "channels", "members", "emojis", "voice_states", "policy_changes",
    ]
    static let names: Set<String> = defaultFields.union(["channel_unreads"])

    /// The fields sent without `ready` items.
    public static let standard = GatewayReadyFields(fields: defaultFields)

    private init(fields: Set<String>) { self.fields = fields }

    /// The fields asked for by the values of the `ready` query items; nil when one of them would crash
    /// the gateway's parser.
    public init?(queryValues: [String]) {
        guard !queryValues.isEmpty else {
            fields = Self.defaultFields
            return
        }
        fields = []
        for value in queryValues {
            if Self.names.contains(value) {
                fields.insert(value)
                continue
            }
            guard let (key, subkey) = Self.match(value) else { continue }  // no match: ignored
            guard let subkey else { return nil }  // `[_, key]` meets no clause of the `case`
            if key == "user_settings" { userSettings.append(subkey) }
        }
    }

    /// `^(\w+)(?:\[(\S+)\])?$` without the `u` flag: word characters are ASCII letters, digits and `_`.
    private static func match(_ value: String) -> (String, String?)? {
        let bytes = Array(value.utf8)
        func isWord(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F
        }
        var index = 0
        while index < bytes.count, isWord(bytes[index]) { index += 1 }
        guard index > 0 else { return nil }
        let key = String(decoding: bytes[..<index], as: UTF8.self)
        if index == bytes.count { return (key, nil) }
        // `\[(\S+)\]$`: PCRE backtracks to the last `]`, and `\S` takes any byte but ASCII whitespace.
        guard bytes[index] == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]"), bytes.count - index >= 3 else {
            return nil
        }
        let inner = bytes[(index + 1)..<(bytes.count - 1)]
        guard !inner.contains(where: { [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains($0) }) else { return nil }
        return (key, String(decoding: inner, as: UTF8.self))
    }

    /// Whether `field` is sent.
    public func includes(_ field: String) -> Bool { fields.contains(field) }
}
