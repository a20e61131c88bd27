import Foundation
import StoatReferenceServer
import Testing

@testable import LifelineBenchmarks
@testable import LifelineCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `lifeline connect --json` sending through the outbox: its `outbox` lines, `discard` and `resend`, a store that
/// keeps queued messages through `quit`, SIGTERM and kill -9, and a deaf socket's `deliveryStalled`.
@Suite("lifeline connect: the outbox", .hangBound)
struct ConnectOutboxTests {
    static let fast = ConnectCommandTests.fast

    /// The outbox lines of one nonce, read until one in `state`.
    static func outbox(_ run: ConnectRun, until state: String, nonce: String? = nil) async -> [String: Any]? {
        await run.next { line in
            line["type"] as? String == "outbox" && line["state"] as? String == state
                && (nonce == nil || line["nonce"] as? String == nonce)
        }
    }

    @Test("send prints queued, sending, sent with the id; a refusal fails with its reason; resend and discard")
    func sendLines() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let general = server.lobbyChannelID
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString] + Self.fast, environment: ["LIFELINE_TOKEN": account.token])
        #expect(await run.transition(to: "CONNECTED") != nil)
        run.send("send \(general) hello through the outbox")
        // The command's line and the outbox's come from two tasks: their order is not fixed.
        var states: [String] = []
        var accepted: Bool?
        var sent: [String: Any]?
        while sent == nil || accepted == nil,
            let line = await run.next({ ["outbox", "command"].contains($0["type"] as? String) })
        {
            if line["type"] as? String == "command" {
                accepted = line["accepted"] as? Bool
                continue
            }
            states.append(line["state"] as? String ?? "?")
            #expect(line["channel"] as? String == general)
            if line["state"] as? String == "sent" { sent = line }
            if line["state"] as? String != "sent" {
                #expect(line["id"] == nil && line["reason"] == nil && line["retry_after"] == nil)
            }
        }
        #expect(accepted == true)
        #expect(states == ["queued", "sending", "sent"])
        let id = try #require(sent?["id"] as? String)
        #expect(id.count == 26)

        // A channel that does not exist: refused for good, with the server's kind.
        run.send("send 01NOSUCHCHANNEL00000000000 lost cause")
        let failed = try #require(await Self.outbox(run, until: "failed"))
        let failedNonce = try #require(failed["nonce"] as? String)
        #expect(failed["reason"] as? String == "NotFound")
        run.send("resend \(failedNonce)")
        var resent: [String: Any]?
        var refusedAgain: [String: Any]?
        while resent == nil || refusedAgain == nil, let line = await run.next({ _ in true }) {
            if line["type"] as? String == "command", line["command"] as? String == "resend \(failedNonce)" {
                resent = line
            }
            if line["type"] as? String == "outbox", line["nonce"] as? String == failedNonce,
                line["state"] as? String == "failed"
            {
                refusedAgain = line
            }
        }
        #expect(resent?["accepted"] as? Bool == true)
        #expect(refusedAgain?["reason"] as? String == "NotFound")
        run.send("discard \(failedNonce)")
        #expect(
            await run.next {
                $0["type"] as? String == "command" && $0["command"] as? String == "discard \(failedNonce)"
            }?["accepted"] as? Bool == true)
        run.send("discard \(failedNonce)")
        let again = try #require(
            await run.next {
                $0["type"] as? String == "command" && $0["command"] as? String == "discard \(failedNonce)"
            })
        #expect(again["accepted"] as? Bool == false)
        #expect((again["reason"] as? String)?.contains("no entry") == true)
        #expect(await run.quit() == 0)
        await server.stop()
    }

    @Test(
        "edit, react, unreact and delete a known message: each outbox line carries its kind, through queued, sending, sent"
    )
    func actionLines() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let general = server.lobbyChannelID
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString] + Self.fast, environment: ["LIFELINE_TOKEN": account.token])
        #expect(await run.transition(to: "CONNECTED") != nil)
        run.send("send \(general) a message to act on")
        let sent = try #require(await Self.outbox(run, until: "sent"))
        #expect(sent["kind"] as? String == "send")
        let id = try #require(sent["id"] as? String)

        for (command, kind) in [
            ("edit \(id) edited text", "edit"), ("react \(id) 👍", "react"), ("unreact \(id) 👍", "unreact"),
            ("delete \(id)", "delete"),
        ] {
            run.send(command)
            var states: [String] = []
            while states.last != "sent",
                let line = await run.next({ $0["type"] as? String == "outbox" && $0["kind"] as? String == kind })
            {
                states.append(line["state"] as? String ?? "?")
                #expect(line["channel"] as? String == general)
                if line["state"] as? String == "sent" { #expect(line["id"] as? String == id) }
                if line["state"] as? String == "failed" {
                    Issue.record("\(command) failed: \(line)")
                    break
                }
            }
            #expect(states == ["queued", "sending", "sent"], "\(command)")
        }
        let stored = await server.messages(in: general)
        #expect(!stored.contains { $0.id == id }, "deleted on the server")

        run.send("edit 01NOSUCHMESSAGE0000000000 text")
        let refused = try #require(
            await run.next {
                $0["type"] as? String == "command" && ($0["command"] as? String)?.hasPrefix("edit 01NO") == true
            })
        #expect(refused["accepted"] as? Bool == false)
        #expect((refused["reason"] as? String)?.contains("knows no message") == true)
        #expect(await run.quit() == 0)
        await server.stop()
    }

    @Test(
        "attach CHANNEL PATH TEXT with spaces in the path: progress lines while it uploads, sent once with the file; over the limit it fails FileTooLarge"
    )
    func attachLines() async throws {
        var configuration = ReferenceServer.Configuration()
        configuration.uploadLimits = UploadLimits(
            newUser: ["attachments": 1_000_000], standard: ["attachments": 1_000_000])
        let server = try await ReferenceServer.start(configuration)
        let account = server.defaultAccount
        let general = server.lobbyChannelID
        let directory = ConnectAccountTests.StoreDirectory()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let contents = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let path = directory.path + "/a file with spaces.bin"
        try contents.write(to: URL(fileURLWithPath: path))
        let bigPath = directory.path + "/too big.bin"
        try Data(count: 1_000_001).write(to: URL(fileURLWithPath: bigPath))
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString] + Self.fast, environment: ["LIFELINE_TOKEN": account.token])
        #expect(await run.transition(to: "CONNECTED") != nil)

        run.send("attach \(general) \(path) the file, with words")
        var states: [String] = []
        var progress: [[String: Int]] = []
        var sent: [String: Any]?
        while sent == nil, let line = await run.next({ $0["type"] as? String == "outbox" }) {
            #expect(line["kind"] as? String == "send")
            if states.last != line["state"] as? String { states.append(line["state"] as? String ?? "?") }
            if let step = line["progress"] as? [String: Int] { progress.append(step) }
            if line["state"] as? String == "sent" { sent = line }
            if line["state"] as? String == "failed" {
                Issue.record("attach failed: \(line)")
                break
            }
        }
        #expect(states == ["queued", "sending", "sent"])
        #expect(!progress.isEmpty)
        #expect(progress.allSatisfy { $0["total"] == contents.count && ($0["sent"] ?? -1) <= contents.count })
        #expect(progress.last?["sent"] == contents.count, "\(progress)")
        let id = try #require(sent?["id"] as? String)
        let message = try #require(await server.messages(in: general).first { $0.id == id })
        #expect(message.content == "the file, with words")
        let file = try #require(message.attachments?.first)
        #expect(file.filename == "a file with spaces.bin")
        #expect(await server.fileContents(id: file.id) == contents)

        run.send("attach \(general) \(bigPath)")
        let failed = try #require(await Self.outbox(run, until: "failed"))
        #expect(failed["reason"] as? String == "FileTooLarge")
        #expect(await server.socketCounters().uploadsStored == 1)

        run.send("attach \(general) /nonexistent/lifeline file")
        let refused = try #require(
            await run.next {
                $0["type"] as? String == "command" && ($0["command"] as? String)?.hasPrefix("attach") == true
                    && $0["accepted"] as? Bool == false
            })
        #expect((refused["reason"] as? String)?.contains("cannot be read") == true)
        #expect(await run.quit() == 0)
        await server.stop()
    }

    @Test("attach's path is the longest prefix of the rest that names an existing file; else its first word")
    func attachPath() throws {
        let directory = ConnectAccountTests.StoreDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/my dir", withIntermediateDirectories: true)
        let short = directory.path + "/my"
        let long = directory.path + "/my dir/my file.txt"
        try Data("a".utf8).write(to: URL(fileURLWithPath: short))
        try Data("b".utf8).write(to: URL(fileURLWithPath: long))
        #expect(Connect.attachment("\(long) hello there")! == (long, "hello there"))
        #expect(Connect.attachment(long)! == (long, nil))
        #expect(Connect.attachment("\(short) dir/nothing here")! == (short, "dir/nothing here"))
        // A directory is no file: the longest prefix that is a file wins.
        #expect(Connect.attachment("\(directory.path)/my dir x")! == ("\(directory.path)/my", "dir x"))
        #expect(Connect.attachment("/nonexistent/a b")! == ("/nonexistent/a", "b"))
        #expect(Connect.attachment("") == nil)
    }

    @Test(
        "with --store, messages sent while the server is unreachable survive quit, SIGTERM and kill -9, and are each sent once on the next run"
    )
    func survivesTheProcess() async throws {
        let data = ConnectAccountTests.StoreDirectory()
        try FileManager.default.createDirectory(atPath: data.path, withIntermediateDirectories: true)
        let dataFile = data.path + "/server.sqlite"
        let server = try await ReferenceServer.start(.init(dataFile: dataFile))
        let port = try #require(server.apiURL.port)
        let account = server.defaultAccount
        let general = server.lobbyChannelID
        let directory = ConnectAccountTests.StoreDirectory()
        let environment = ["LIFELINE_PASSWORD": account.password]
        let base = ["--api", server.apiURL.absoluteString, "--store", directory.path] + Self.fast

        let create = try ConnectRun(base + ["--email", account.email], environment: environment)
        #expect(await create.transition(to: "CONNECTED") != nil)
        #expect(await create.quit() == 0)

        // The server is gone from now on (its REST API too: posts go whenever it may answer, so only a server
        // that cannot be reached keeps them): sends stay in the outbox, kept in the store.
        await server.stop()
        let held = try HeldPort(port)
        let texts = ["kept through quit", "kept through SIGTERM", "kept through kill -9"]
        for (index, text) in texts.enumerated() {
            let run = try ConnectRun(base, environment: environment)
            #expect(await run.next { $0["type"] as? String == "signin" }?["outcome"] as? String == "opened")
            run.send("send \(general) \(text)")
            let command = try #require(await run.next { $0["type"] as? String == "command" })
            #expect(command["accepted"] as? Bool == true, "queued (and kept in the store) before it is answered")
            switch index {
            case 0: #expect(await run.quit() == 0)
            case 1:
                run.process.terminate()
                #expect(await run.exitStatus() == 0)
            default:
                kill(run.process.processIdentifier, SIGKILL)
                #expect(await run.exitStatus() == -SIGKILL)
            }
        }

        // The server is back, with its data, where the account's store knows it.
        held.release()
        let back = try await ReferenceServer.start(.init(port: port, dataFile: dataFile))
        let last = try ConnectRun(base, environment: environment)
        var restored: [String: String] = [:]
        var sent: [String: String] = [:]
        while sent.count < texts.count, let line = await last.next({ $0["type"] as? String == "outbox" }) {
            let nonce = try #require(line["nonce"] as? String)
            let state = try #require(line["state"] as? String)
            if restored[nonce] == nil { restored[nonce] = state }
            if state == "sent" { sent[nonce] = try #require(line["id"] as? String) }
        }
        #expect(restored.count == texts.count, "each restored entry is printed with its state")
        #expect(restored.values.allSatisfy { $0 == "queued" || $0 == "sending" }, "\(restored)")
        #expect(Set(sent.keys) == Set(restored.keys))
        #expect(await last.quit() == 0)
        let messages = try await back.contents(in: general, token: account.token)
        for text in texts {
            #expect(messages.filter { $0 == text }.count == 1, "\(text) on the server once")
        }
        await back.stop()
    }

    @Test("a socket that answers pings but does not deliver the user's own message: deliveryStalled, then reconnected")
    func deafSocket() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString, "--delivery-deadline", "1"] + Self.fast,
            environment: ["LIFELINE_TOKEN": account.token])
        #expect(await run.transition(to: "CONNECTED") != nil)
        #expect(await server.deafenSockets() == 1)
        run.send("send \(server.lobbyChannelID) is anyone there")
        #expect(await Self.outbox(run, until: "sent") != nil)
        let stalled = try #require(await run.transition(to: "DISCONNECTED"))
        #expect(stalled["from"] as? String == "CONNECTED")
        let cause = try #require(stalled["cause"] as? [String: Any])
        #expect(cause["code"] as? String == "deliveryStalled")
        #expect(await run.transition(to: "CONNECTED") != nil, "a fresh socket hears")
        #expect(await run.quit() == 0)
        await server.stop()
    }
}

extension ReferenceServer {
    /// The contents of a channel's latest messages, through the REST API.
    fileprivate func contents(in channel: String, token: String) async throws -> [String] {
        let client = AdminClient(admin: adminURL.absoluteString, api: apiURL)
        let list = try await client.get("/channels/\(channel)/messages?limit=100", token: token) as? [[String: Any]]
        return (list ?? []).compactMap { $0["content"] as? String }
    }
}
