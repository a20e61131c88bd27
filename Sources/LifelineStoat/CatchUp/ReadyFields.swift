/// The `Ready` fields a client asked for with its `ready=` query items: the fields the cache may take from
/// `Ready`. A field not asked for says nothing, however the server writes it — bonfire leaves it out, the new
/// gateway sends it empty (and always sends `channel_unreads: []`) — so an empty list never reads as "no chats"
/// or "all read".
struct ReadyFields: Sendable, Hashable {
    /// A field's `ready=` name.
    struct Field: Sendable, Hashable {
        let name: String

        static let users = Field(name: "users")
        static let servers = Field(name: "servers")
        static let channels = Field(name: "channels")
        static let members = Field(name: "members")
        static let emojis = Field(name: "emojis")
        static let channelUnreads = Field(name: "channel_unreads")
    }

    /// The fields asked for.
    let names: Set<String>

    /// What bonfire sends without a `ready=` item: users, servers, channels, members, emojis, voice states and
    /// policy changes; not `channel_unreads` (`crates/core/database/src/events/client.rs`,
    /// `ReadyPayloadFields::default`).
    static let bonfireDefault = ReadyFields(
        names: ["users", "servers", "channels", "members", "emojis", "voice_states", "policy_changes"])

    private init(names: Set<String>) {
        self.names = names
    }

    /// The fields a connection asks for with `ready` items `asked`: bonfire's default without any, else exactly
    /// those (any item turns the others off).
    init(asked: [String]) {
        self = asked.isEmpty ? .bonfireDefault : ReadyFields(names: Set(asked))
    }

    func contains(_ field: Field) -> Bool { names.contains(field.name) }
}

/// A channel's read state: the last message the user acknowledged, the unacknowledged ones that mention them.
package struct ReadState: Sendable, Hashable {
    package var lastRead: String?
    /// Oldest first, each once.
    package var mentions: [String] = []

    package init(lastRead: String? = nil, mentions: [String] = []) {
        self.lastRead = lastRead
        self.mentions = mentions
    }
}
