import NIOCore

extension ReferenceServer {
    /// Which of Stoat's events servers the socket behaves as.
    ///
    /// - ``bonfire``: stoatchat's Rust server (`crates/bonfire`), the default.
    /// - ``gateway``: Stoat's new Elixir server (`stoatchat/gateway`), which replaces bonfire: it takes only
    ///   `Authenticate`, `Ping`, `BeginTyping` and `EndTyping`, and closes with 1007 after answering any other
    ///   frame `InvalidPayload` — `Subscribe` included (the catalog's "The gateway" says every difference).
    public struct EventsServer: Sendable, Hashable, CustomStringConvertible {
        /// The server's name, as `lifeline serve --events` takes it.
        public var name: String

        private init(name: String) { self.name = name }

        /// stoatchat's bonfire.
        public static let bonfire = EventsServer(name: "bonfire")
        /// Stoat's new Elixir gateway.
        public static let gateway = EventsServer(name: "gateway")

        /// Every events server the reference server can be.
        public static let all: [EventsServer] = [.bonfire, .gateway]

        /// The events server named `name` (`bonfire`, `gateway`), or nil.
        public init?(named name: String) {
            guard let known = Self.all.first(where: { $0.name == name }) else { return nil }
            self = known
        }

        /// The name.
        public var description: String { name }
    }
}

/// The frames' format on one socket, from the upgrade's `format`.
enum WireFormat: Sendable, Equatable {
    /// Text frames of JSON.
    case json
    /// Binary frames of MessagePack.
    case messagePack
}

/// How one socket writes what the server sends: its events server and format.
struct SocketDialect: Sendable, Equatable {
    var server: ReferenceServer.EventsServer
    var format: WireFormat

    static let bonfireJSON = SocketDialect(server: .bonfire, format: .json)

    /// `wire` as this socket's frame: bonfire's JSON in its field order or its `rmp_serde` MessagePack; the
    /// gateway's Jason JSON or `msgpack-erlang` MessagePack, with keys in the order of an Elixir map.
    func frame(_ wire: Wire) -> Outbound {
        let wire = server == .gateway ? wire.sortedKeys : wire
        switch format {
        case .json: return .text(ByteBuffer(bytes: wire.bytes))
        case .messagePack: return .binary(ByteBuffer(bytes: wire.messagePack(binaryStrings: server == .gateway)))
        }
    }
}
