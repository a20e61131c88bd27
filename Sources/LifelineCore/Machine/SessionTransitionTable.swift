/// The session lifecycle's transition table, as data.
///
/// Every edge the lifecycle may take is listed in ``edges``: the specification's twenty drawn edges,
/// LOGOUT from each of the five logged-in states (the specification draws it from "…"), and Lifeline's
/// documented extensions. ``SessionMachine`` looks its targets up here, so the table is the single source
/// of truth; `lifeline spec` prints it.
public enum SessionTransitionTable {
    /// Where an edge comes from.
    public enum Origin: String, Sendable, Hashable, Codable {
        /// The specification draws this edge (or, for LOGOUT, draws it from "…", the logged-in states).
        case spec
        /// Lifeline adds this edge (see <doc:SessionLifecycle>).
        case `extension`
    }

    /// One edge of the lifecycle: in state ``from``, event ``event`` leads to state ``to``.
    public struct Edge: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The state the edge leaves.
        public var from: SessionState
        /// The event that takes it.
        public var event: SessionEvent.Kind
        /// The state the edge enters.
        public var to: SessionState
        /// Whether the specification or Lifeline defines it.
        public var origin: Origin

        /// Creates an edge.
        public init(_ from: SessionState, _ event: SessionEvent.Kind, _ to: SessionState, _ origin: Origin = .spec) {
            self.from = from
            self.event = event
            self.to = to
            self.origin = origin
        }

        /// The edge in the specification's notation, `FROM -->|EVENT| TO`.
        public var description: String { "\(from.rawValue) -->|\(event.rawValue)| \(to.rawValue)" }
    }

    /// Every edge, the specification's first in its own order, then the LOGOUT edges, then the extensions.
    public static let edges: [Edge] = [
        Edge(.ready, .loginUncached, .loggingIn),
        Edge(.ready, .loginCached, .connecting),
        Edge(.loggingIn, .noUser, .onboarding),
        Edge(.loggingIn, .permanentFailure, .error),
        Edge(.loggingIn, .temporaryFailure, .error),
        Edge(.onboarding, .cancel, .dispose),
        Edge(.dispose, .ready, .ready),
        Edge(.error, .dismiss, .dispose),
        Edge(.loggingIn, .socketConnected, .connected),
        Edge(.reconnecting, .socketConnected, .connected),
        Edge(.connecting, .socketConnected, .connected),
        Edge(.onboarding, .userCreated, .loggingIn),
        Edge(.connected, .temporaryFailure, .disconnected),
        Edge(.disconnected, .retry, .reconnecting),
        Edge(.disconnected, .deviceOffline, .offline),
        Edge(.reconnecting, .temporaryFailure, .disconnected),
        Edge(.connecting, .temporaryFailure, .disconnected),
        Edge(.connecting, .permanentFailure, .error),
        Edge(.reconnecting, .permanentFailure, .error),
        Edge(.offline, .deviceOnline, .reconnecting),
        // "... -->|LOGOUT| DISPOSE": the spec's "..." is the Logged In group.
        Edge(.connecting, .logout, .dispose),
        Edge(.connected, .logout, .dispose),
        Edge(.disconnected, .logout, .dispose),
        Edge(.reconnecting, .logout, .dispose),
        Edge(.offline, .logout, .dispose),
        // The user's "reconnect now" (an extension).
        Edge(.disconnected, .reconnectNow, .reconnecting, .extension),
        Edge(.offline, .reconnectNow, .reconnecting, .extension),
        // The device woke: a pending retry is taken now (an extension; CONNECTED's check of its socket on
        // waking takes no edge, see `SessionEvent.deviceWoke`).
        Edge(.disconnected, .deviceWoke, .reconnecting, .extension),
    ]

    /// The state that `event` leads to from `state`, or `nil` when the table has no such edge.
    ///
    /// A constant-time lookup in a dense table built once from ``edges``.
    @inlinable
    public static func target(from state: SessionState, on event: SessionEvent.Kind) -> SessionState? {
        dense[state.tableIndex &* SessionEvent.Kind.tableCount &+ event.tableIndex]
    }

    /// The edge that `event` takes from `state`, or `nil` when the table has no such edge.
    public static func edge(from state: SessionState, on event: SessionEvent.Kind) -> Edge? {
        edges.first { $0.from == state && $0.event == event }
    }

    /// The lookup table behind ``target(from:on:)``, indexed by state then event.
    @usableFromInline
    static let dense: [SessionState?] = {
        for (position, state) in SessionState.allCases.enumerated() where state.tableIndex != position {
            preconditionFailure("\(state) is case \(position) of allCases but has table index \(state.tableIndex)")
        }
        for (position, kind) in SessionEvent.Kind.allCases.enumerated() where kind.tableIndex != position {
            preconditionFailure("\(kind) is case \(position) of allCases but has table index \(kind.tableIndex)")
        }
        var table = [SessionState?](repeating: nil, count: SessionState.tableCount * SessionEvent.Kind.tableCount)
        for edge in edges {
            let slot = edge.from.tableIndex * SessionEvent.Kind.tableCount + edge.event.tableIndex
            precondition(table[slot] == nil, "two edges leave \(edge.from) on \(edge.event)")
            table[slot] = edge.to
        }
        return table
    }()

    /// The table in the specification's Mermaid notation; extension edges are drawn dashed (`-.->`).
    public static func mermaid() -> String {
        var lines = ["flowchart TD"]
        for edge in edges {
            switch edge.origin {
            case .spec: lines.append("\(edge.from.rawValue) -->|\(edge.event.rawValue)| \(edge.to.rawValue)")
            case .extension: lines.append("\(edge.from.rawValue) -.->|\(edge.event.rawValue)| \(edge.to.rawValue)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension SessionState {
    /// The state's row in the dense transition table: its position in `allCases`.
    ///
    /// A payload-free enum's in-memory value is its case's position in declaration order, which is also
    /// the order of the synthesised `allCases`; reading it costs nothing, where searching `allCases` or
    /// hashing the state would cost more than the rest of a transition. ``SessionTransitionTable`` checks
    /// once, when it builds its table, that the two agree for every case, so a new case needs no number.
    @usableFromInline
    var tableIndex: Int { Int(unsafeBitCast(self, to: UInt8.self)) }

    @usableFromInline
    static let tableCount = allCases.count
}

extension SessionEvent.Kind {
    /// The event's column in the dense transition table: its position in `allCases` (see
    /// `SessionState.tableIndex`).
    @usableFromInline
    var tableIndex: Int { Int(unsafeBitCast(self, to: UInt8.self)) }

    @usableFromInline
    static let tableCount = allCases.count
}
