import Foundation
import StoatReferenceServer
import TestProcess
import Testing

@Suite("lifeline operations", .hangBound)
struct OperationsCommandTests {
    /// Reads the next JSON line as `(type, ids)`.
    static func next(_ lines: inout AsyncStream<String>.Iterator) async throws -> (String, [String])? {
        guard let line = await lines.next() else { return nil }
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        return (try #require(object["type"] as? String), try #require(object["ids"] as? [String]))
    }

    @Test("--json prints the list on every refresh and the expired ids when the watcher fires; a push refreshes")
    func watches() async throws {
        // The server expires operations only when told: the watcher's firing comes before any push.
        let server = try await ReferenceServer.start(.init(expiryCheckInterval: .seconds(3_600)))
        let account = server.defaultAccount
        let soon = await server.addOperation(kind: "login_approval", userID: account.userID, expiresIn: .seconds(1))
        let later = await server.addOperation(kind: "invite", userID: account.userID, expiresIn: .seconds(600))
        let process = ChildProcess()
        process.executableURL = try Executable.url
        // The token comes from the environment, as the README recommends: never on the command line.
        process.arguments = ["operations", "--api", server.apiURL.absoluteString, "--json", "--request-timeout", "120"]
        process.environment = ProcessInfo.processInfo.environment.merging(["LIFELINE_TOKEN": account.token]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // An early failure must not leave the process running (it would hold the run's output open).
        defer { if process.isRunning { process.terminate() } }
        var lines = LineReader(output.fileHandleForReading).lines.makeAsyncIterator()
        let first = try await Self.next(&lines)
        #expect(first?.0 == "operations" && first?.1 == [soon.id, later.id])
        // The socket's CONNECTED refreshes the list too (a push missed while it was down is caught up).
        var expired = try await Self.next(&lines)
        while expired?.0 == "operations" {
            #expect(expired?.1 == [soon.id, later.id])
            expired = try await Self.next(&lines)
        }
        #expect(expired?.0 == "expired" && expired?.1 == [soon.id])
        // The server drops it now, and pushes OperationFinished; a refresh before that still lists it.
        #expect(await server.processExpiredOperations() == [soon.id])
        var refreshed = try await Self.next(&lines)
        while refreshed?.0 != "operations" || refreshed?.1 != [later.id] {
            try #require(refreshed != nil, "the output ended")
            refreshed = try await Self.next(&lines)
        }
        #expect(await server.finishOperation(id: later.id, result: .rejected))
        var pushed = try await Self.next(&lines)
        while pushed?.1 != [] {
            try #require(pushed != nil, "the output ended")
            pushed = try await Self.next(&lines)
        }
        #expect(pushed?.0 == "operations")
        process.terminate()
        await process.exited()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        await server.stop()
    }

    @Test("an invalid token fails the first refresh: the reason on standard error, exit status 1")
    func invalidToken() async throws {
        let server = try await ReferenceServer.start()
        let run = try await Executable.run(["operations", "--api", server.apiURL.absoluteString, "--token", "nope"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("refreshing failed"))
        #expect(!run.standardError.contains("nope"), "the token is not echoed")
        await server.stop()
    }
}
