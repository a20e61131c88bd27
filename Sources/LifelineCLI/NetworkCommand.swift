import ArgumentParser
import Lifeline
import LifelineCLIOutput

/// `lifeline network`: what the system network monitor says, once or as it changes.
struct Network: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the device's network status as Lifeline's system monitor sees it.",
        discussion: """
            Online means at least one interface other than loopback is up with a usable address. With \
            --watch, prints every change until interrupted (on Linux from rtnetlink, on Apple platforms \
            from NWPathMonitor).
            """
    )

    @Flag(help: "Keep watching and print each change.")
    var watch = false

    @Flag(help: "Print one JSON object per status: {\"type\":\"network\",\"status\":\"online\"}.")
    var json = false

    func run() async throws {
        for await status in SystemNetworkMonitor.make().statuses() {
            emit(
                json
                    ? JSONLine.encode(["type": .string("network"), "status": .string(status.rawValue)])
                    : status.rawValue)
            guard watch else { return }
        }
    }
}
