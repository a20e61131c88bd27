import LifelineCore
import Testing

@Suite("The transition table")
struct SessionTransitionTableTests {
    /// The specification's graph, copied literally from the session lifecycle specification; `... -->|LOGOUT|
    /// DISPOSE` is expanded to the five states of its Logged In group (LifelineCore.docc/SessionLifecycle.md:
    /// "LOGOUT leaves every logged-in state for DISPOSE").
    static let specification = """
        READY -->|LOGIN_UNCACHED| LOGGING_IN
        READY -->|LOGIN_CACHED| CONNECTING
        LOGGING_IN -->|NO_USER| ONBOARDING
        LOGGING_IN -->|PERMANENT_FAILURE| ERROR
        LOGGING_IN -->|TEMPORARY_FAILURE| ERROR
        ONBOARDING -->|CANCEL| DISPOSE
        DISPOSE -->|READY| READY
        ERROR -->|DISMISS| DISPOSE
        LOGGING_IN -->|SOCKET_CONNECTED| CONNECTED
        RECONNECTING -->|SOCKET_CONNECTED| CONNECTED
        CONNECTING -->|SOCKET_CONNECTED| CONNECTED
        ONBOARDING -->|USER_CREATED| LOGGING_IN
        CONNECTED -->|TEMPORARY_FAILURE| DISCONNECTED
        DISCONNECTED -->|RETRY| RECONNECTING
        DISCONNECTED -->|DEVICE_OFFLINE| OFFLINE
        RECONNECTING -->|TEMPORARY_FAILURE| DISCONNECTED
        CONNECTING -->|TEMPORARY_FAILURE| DISCONNECTED
        CONNECTING -->|PERMANENT_FAILURE| ERROR
        RECONNECTING -->|PERMANENT_FAILURE| ERROR
        OFFLINE -->|DEVICE_ONLINE| RECONNECTING
        CONNECTING -->|LOGOUT| DISPOSE
        CONNECTED -->|LOGOUT| DISPOSE
        DISCONNECTED -->|LOGOUT| DISPOSE
        RECONNECTING -->|LOGOUT| DISPOSE
        OFFLINE -->|LOGOUT| DISPOSE
        """

    @Test("the table's spec edges are the specification's 25 edges, edge for edge, in order")
    func specEdgesEqualTheSpecification() {
        let spec = SessionTransitionTable.edges.filter { $0.origin == .spec }.map(\.description)
        let literal = Self.specification.split(separator: "\n").map(String.init)
        #expect(literal.count == 25)
        #expect(spec == literal)
    }

    @Test("the spec edges use only the specification's events; extensions are marked and dashed")
    func extensionsAreMarked() {
        for edge in SessionTransitionTable.edges {
            #expect(edge.event.isSpec == (edge.origin == .spec), "\(edge)")
        }
        let extensions = SessionTransitionTable.edges.filter { $0.origin == .extension }.map(\.description)
        #expect(
            extensions == [
                "DISCONNECTED -->|RECONNECT_NOW| RECONNECTING", "OFFLINE -->|RECONNECT_NOW| RECONNECTING",
                "DISCONNECTED -->|DEVICE_WOKE| RECONNECTING",
            ])
        let mermaid = SessionTransitionTable.mermaid()
        #expect(mermaid.contains("OFFLINE -.->|RECONNECT_NOW| RECONNECTING"))
        #expect(!mermaid.contains("OFFLINE -->|RECONNECT_NOW|"))
    }

    @Test("the Mermaid flowchart draws every spec edge in the specification's notation")
    func mermaidDrawsEverySpecEdge() {
        let lines = Set(SessionTransitionTable.mermaid().split(separator: "\n").map(String.init))
        for line in Self.specification.split(separator: "\n") {
            #expect(lines.contains(String(line)), "missing \(line)")
        }
        #expect(SessionTransitionTable.mermaid().hasPrefix("flowchart TD\n"))
    }

    @Test("the dense lookup agrees with the edge list for every (state, event) pair")
    func lookupAgreesWithEdges() {
        for state in SessionState.allCases {
            for event in SessionEvent.Kind.allCases {
                #expect(
                    SessionTransitionTable.target(from: state, on: event)
                        == SessionTransitionTable.edge(from: state, on: event)?.to)
            }
        }
    }

    @Test("LOGOUT leaves exactly the five logged-in states")
    func logoutFromLoggedInStates() {
        let froms = SessionTransitionTable.edges.filter { $0.event == .logout }.map(\.from)
        #expect(Set(froms) == Set(SessionState.allCases.filter(\.isLoggedIn)))
        #expect(froms.count == 5)
    }
}
