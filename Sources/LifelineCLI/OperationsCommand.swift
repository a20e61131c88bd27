import ArgumentParser
import Foundation
import Lifeline
import LifelineCLIOutput
import LifelineCore
import LifelineStoat
import UnixSignals

/// `lifeline operations`: watches a session's pending operations — refreshed when one expires and when
/// the server pushes `OperationFinished` — until Ctrl-C or SIGTERM. The operations API is Lifeline's own
/// extension, served by `lifeline serve`; stoatchat has none.
struct Operations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operations",
        abstract: "Watch a session's pending operations (lifeline serve's extension), refreshing when one expires.",
        discussion: """
            GET /operations and the OperationFinished event are Lifeline's own extension, served by lifeline \
            serve's reference server: stoatchat has no operations API, so api.stoat.chat answers 404 here. \
            Against real Stoat, `lifeline connect` watches the deadlines the server does send (the member \
            timeout in each server, slowmodes). \
            Lists GET /operations, converts each expiry from the server's clock (its Date header) to this \
            machine's monotonic clock once, and watches them with one timer. When one expires, or the events \
            socket pushes OperationFinished, the list is refreshed from the server; an expired operation is \
            shown until the server stops listing it. With --json, prints {"type":"operations","ids":[...]} \
            on every refresh and {"type":"expired","ids":[...]} when the watcher fires. Runs until Ctrl-C.
            """
    )

    @Option(help: "The API's base URL, for example https://api.stoat.chat or `lifeline serve`'s.")
    var api: String

    @Option(help: "The session token; -TOKEN needs --token=. Prefer LIFELINE_TOKEN or --token-stdin (ps shows it).")
    var token: String?

    @Flag(help: "Read the session token from the first line of standard input.")
    var tokenStdin = false

    @Flag(help: "Print one JSON object per refresh and per expiry.")
    var json = false

    @Option(help: "A PEM file of certificate authorities to trust besides the system's (a self-hosted instance's own).")
    var caFile: String?

    @Option(help: "Seconds to wait for the answer to a REST request.") var requestTimeout: Double = 30

    func validate() throws {
        guard let url = URL(string: api), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("--api must be an http or https URL, got \(api)")
        }
        guard token != nil || tokenStdin || Connect.environment["LIFELINE_TOKEN"] != nil else {
            throw ValidationError("Give the session token: LIFELINE_TOKEN, --token-stdin or --token.")
        }
        if let caFile { _ = try CertificateAuthorities.load(caFile) }
        guard requestTimeout > 0, requestTimeout.isFinite else {
            throw ValidationError("--request-timeout must be a positive number of seconds, got \(requestTimeout).")
        }
    }

    func run() async throws {
        let input = tokenStdin ? StandardInputLines(firstLineIsSecret: true) : nil
        let fromInput = await input?.secret()
        guard let token = token ?? fromInput ?? Connect.environment["LIFELINE_TOKEN"] else {
            throw ValidationError("Standard input ended before the session token.")
        }
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let credentials = SessionCredentials(token: token)
        var configuration = StoatClient.Configuration()
        configuration.requestTimeout = .seconds(requestTimeout)
        try CertificateAuthorities.trust(caFile, in: &configuration)
        let client = StoatClient(apiURL: URL(string: api)!, configuration: configuration)
        let list = OperationList(source: StoatOperationSource(api: client.api, credentials: credentials))
        let events = list.events
        let failed = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                await client.run()
                return false
            }
            group.addTask {
                await client.resume(credentials)
                await list.follow(client)
                return false
            }
            group.addTask {
                await list.run()
                return false
            }
            group.addTask { [json] in
                var refreshed = false
                for await event in events {
                    switch event {
                    case .refreshed(let listed):
                        refreshed = true
                        emit(Self.line(type: "operations", listed.map(\.operation), state: listed, json: json))
                    case .expired(let operations):
                        emit(Self.line(type: "expired", operations, state: nil, json: json))
                    case .refreshFailed(let error):
                        Self.report(error)
                        // The first list could not be fetched: nothing to watch.
                        if !refreshed { return true }
                    }
                }
                return false
            }
            group.addTask {
                for await _ in signals { break }
                return false
            }
            let failed = try await group.next() ?? false
            group.cancelAll()
            return failed
        }
        if failed { throw ExitCode(1) }
    }

    /// One output line: JSON, or the ids with each one's kind, state and expiry. The ids and kinds are the
    /// server's text: exact in JSON, terminal-safe in human output.
    static func line(
        type: String, _ operations: [OperationsPage.Operation], state: [ListedOperation<OperationsPage.Operation>]?,
        json: Bool
    ) -> String {
        if json { return JSONLine.encode(["type": .string(type), "ids": .strings(operations.map(\.id))]) }
        guard let state else { return "expired: " + terminalSafe(operations.map(\.id).joined(separator: ", ")) }
        guard !state.isEmpty else { return "operations: none" }
        let rows = state.map { listed in
            let marker = listed.state == .pending ? "pending" : "expired, awaiting refresh"
            return "  \(terminalSafe(listed.operation.id))  \(terminalSafe(listed.operation.kind))  \(marker)  expires "
                + listed.operation.expiresAt.formatted(.iso8601)
        }
        return (["operations:"] + rows).joined(separator: "\n")
    }

    /// A failed refresh, for standard error: its code and message (an error kind the server chose among them),
    /// terminal-safe.
    static func reportLine(_ error: any Error) -> String {
        let message = (error as? StoatAPIError).map { "\($0.code): \($0.message)" } ?? "\(error)"
        return "lifeline operations: refreshing failed: \(terminalSafe(message))\n"
    }

    static func report(_ error: any Error) {
        FileHandle.standardError.write(Data(reportLine(error).utf8))
    }
}
