import Foundation
import LifelineCLIOutput
import LifelineStoat
import StoatReferenceServer
import TestProcess
import Testing

@testable import LifelineCLI

/// Human output never lets the server's text drive the terminal: no control character, no escape sequence, no
/// bidirectional override reaches it. JSON output keeps the text exact.
@Suite("Terminal safety of the server's text", .hangBound)
struct TerminalSafetyTests {
    /// Text a hostile server chooses: a title-setting OSC, a screen clear, a carriage return that hides what
    /// came before, and the bidirectional controls that reorder a line (as "Trojan Source" does).
    static let hostile =
        "a\u{1B}]0;owned\u{07}\u{1B}[2J\rb\u{202A}c\u{202B}d\u{202C}e\u{202D}f\u{202E}g\u{2066}h\u{2067}i\u{2068}j\u{2069}k"

    /// Whether a line is safe on a terminal: no C0 or C1 control, no bidirectional embedding, override or isolate.
    static func isSafe(_ text: String) -> Bool {
        !text.unicodeScalars.contains {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value)
                || (0x2066...0x2069).contains($0.value)
        }
    }

    @Test("terminalSafe shows controls and bidirectional controls as U+FFFD, and keeps every other character")
    func terminalSafeText() {
        let safe = terminalSafe(Self.hostile)
        #expect(Self.isSafe(safe))
        #expect(
            safe
                == "a\u{FFFD}]0;owned\u{FFFD}\u{FFFD}[2J\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\u{FFFD}f\u{FFFD}g\u{FFFD}h\u{FFFD}i\u{FFFD}j\u{FFFD}k"
        )
        // Right-to-left text itself, and the marks that only nudge neutral characters, are kept.
        let arabic = "مرحبا \u{200F}(1)"
        #expect(terminalSafe(arabic) == arabic)
        #expect(terminalSafe("line\nnext\ttab") == "line\u{23CE}next tab")
    }

    @Test("lifeline operations' human lines and its refresh failure show the server's text safely; JSON keeps it")
    func operationsLines() {
        let operation = OperationsPage.Operation(
            id: Self.hostile, kind: Self.hostile, expiresAt: Date(timeIntervalSince1970: 0))
        let listed = Operations.line(
            type: "operations", [operation],
            state: [.init(operation, state: .pending, serverExpiry: nil, deadline: nil)],
            json: false)
        #expect(Self.isSafe(listed.replacingOccurrences(of: "\n", with: "")))
        #expect(Self.isSafe(Operations.line(type: "expired", [operation], state: nil, json: false)))
        let json = Operations.line(type: "expired", [operation], state: nil, json: true)
        let decoded = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect((decoded?["ids"] as? [String]) == [Self.hostile], "JSON keeps the text exact")
        let refusal = StoatAPIError(code: .init(rawValue: Self.hostile), message: Self.hostile, kind: Self.hostile)
        let report = Operations.reportLine(refusal)
        #expect(report.hasSuffix("\n"))
        #expect(Self.isSafe(String(report.dropLast())))
    }

    @Test("lifeline operations prints an operation kind the server chose without obeying it")
    func operationsCommand() async throws {
        let server = try await ReferenceServer.start(.init(expiryCheckInterval: .seconds(3_600)))
        let account = server.defaultAccount
        _ = await server.addOperation(kind: Self.hostile, userID: account.userID, expiresIn: .seconds(600))
        let process = ChildProcess()
        process.executableURL = try Executable.url
        process.arguments = ["operations", "--api", server.apiURL.absoluteString, "--request-timeout", "120"]
        process.environment = ProcessInfo.processInfo.environment.merging(["LIFELINE_TOKEN": account.token]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var lines = LineReader(output.fileHandleForReading).lines.makeAsyncIterator()
        var row: String?
        while let line = await lines.next() {
            if line.contains("owned") {
                row = line
                break
            }
        }
        let shown = try #require(row)
        #expect(Self.isSafe(shown), "\(shown.debugDescription)")
        #expect(shown.contains("\u{FFFD}]0;owned"))
        process.terminate()
        await process.exited()
        await server.stop()
    }

    @Test("the --erase-store error lists the store's labels (usernames the server chose) without obeying them")
    func eraseStoreError() async throws {
        let server = try await ReferenceServer.start()
        let named = try await server.addUser(username: Self.hostile)
        let directory = ConnectAccountTests.StoreDirectory()
        let base = ["--api", server.apiURL.absoluteString, "--store", directory.path] + ConnectAccountTests.fast
        let run = try ConnectRun(base + ["--email", named.email], environment: ["LIFELINE_PASSWORD": named.password])
        #expect(await run.next { $0["type"] as? String == "signin" }?["outcome"] as? String == "created")
        #expect(await run.transition(to: "CONNECTED") != nil)
        // The account is labelled with the username once connected: a history fetched from the server after
        // that gives the label's write the time to land before the run quits.
        run.send("history \(server.lobbyChannelID)")
        #expect(await run.next { $0["type"] as? String == "history" } != nil)
        #expect(await run.quit() == 0)

        let erase = try await Executable.run(["connect"] + base + ["--account", "nobody", "--erase-store"])
        #expect(erase.status != 0)
        #expect(erase.standardError.contains("owned"), "\(erase.standardError)")
        #expect(
            Self.isSafe(erase.standardError.replacingOccurrences(of: "\n", with: "")),
            "\(erase.standardError.debugDescription)")
        await server.stop()
    }
}
