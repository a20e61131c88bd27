/// Which Ready fields a connection asked for with repeated `ready=<field>` query items, as bonfire reads them
/// (`crates/bonfire/src/config.rs`).
///
/// No `ready` item means stoatchat's default set. With `ready` items, only the named fields are sent; unknown
/// names are ignored, and `user_settings` is never sent: bonfire compares the whole item (`user_settings[key]`)
/// with `user_settings`, so it never records a key.
public struct ReadyFilter: Sendable, Equatable {
    /// The fields a Ready carries when no filter is given: users, servers, channels, members, emojis,
    /// voice_states and policy_changes (not channel_unreads, not user_settings).
    public static let defaultFields: Set<String> = [
        "users", "servers", "channels", "members", "emojis", "voice_states", "policy_changes",
    ]
    /// The fields a `ready` item can ask for.
    static let knownFields = defaultFields.union(["channel_unreads"])

    /// The fields to send.
    public let fields: Set<String>

    /// A filter from the values of the `ready` query items (empty: the default set).
    public init(queryValues: [String]) {
        if queryValues.isEmpty {
            fields = Self.defaultFields
        } else {
            fields = Set(queryValues.filter { Self.knownFields.contains($0) })
        }
    }

    /// Whether `field` is sent.
    public func includes(_ field: String) -> Bool { fields.contains(field) }
}
