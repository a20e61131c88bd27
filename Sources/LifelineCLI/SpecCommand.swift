import ArgumentParser
import LifelineCLIOutput
import LifelineCore

/// `lifeline spec`: prints the session lifecycle's transition table.
struct Spec: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the session lifecycle's transition table.",
        discussion: """
            Every edge Lifeline's state machine may take: the specification's 20 drawn edges, LOGOUT from \
            each of the five logged-in states, and Lifeline's documented extensions. With --mermaid, a \
            flowchart in the specification's notation (extension edges dashed).
            """
    )

    @Flag(help: "Print a Mermaid flowchart in the specification's notation.")
    var mermaid = false

    @Flag(help: "Print one JSON object per edge.")
    var json = false

    func validate() throws {
        if mermaid && json { throw ValidationError("--mermaid and --json cannot be combined.") }
    }

    func run() {
        print(Self.render(mermaid: mermaid, json: json))
    }

    /// The table as text, Mermaid, or JSON lines.
    static func render(mermaid: Bool, json: Bool) -> String {
        if mermaid { return SessionTransitionTable.mermaid() }
        let edges = SessionTransitionTable.edges
        if json {
            return edges.map {
                JSONLine.encode([
                    "from": .string($0.from.rawValue), "event": .string($0.event.rawValue),
                    "to": .string($0.to.rawValue), "origin": .string($0.origin.rawValue),
                ])
            }.joined(separator: "\n")
        }
        let rows = edges.map { [$0.from.rawValue, $0.event.rawValue, $0.to.rawValue, $0.origin.rawValue] }
        let spec = edges.filter { $0.origin == .spec }.count
        return TextTable.render(header: ["FROM", "EVENT", "TO", "ORIGIN"], rows: rows)
            + "\n\(edges.count) edges: \(spec) from the specification, \(edges.count - spec) extensions."
    }
}
