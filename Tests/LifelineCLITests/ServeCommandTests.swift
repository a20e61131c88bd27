import Foundation
import TestProcess
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("lifeline serve", .hangBound)
struct ServeCommandTests {
    @Test(
        "--json prints one line with the addresses, a ready account and a bot once it accepts connections, and SIGTERM stops it with exit 0"
    )
    func serveJSON() async throws {
        let process = ChildProcess()
        process.executableURL = try Executable.url
        process.arguments = ["serve", "--port", "0", "--json"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // An early failure must not leave the process running (it would hold the run's output open).
        defer { if process.isRunning { process.terminate() } }
        var lines = LineReader(output.fileHandleForReading).lines.makeAsyncIterator()
        let line = try #require(await lines.next())
        let parsed = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(
            Set(parsed.keys) == [
                "api", "events", "admin", "files", "email", "password", "token", "user_id", "bot_token", "bot_id",
                "servers",
            ])
        let object = parsed.compactMapValues { $0 as? String }
        #expect(object.count == parsed.count - 1, "every key but servers is a string")
        // The seeded world: the lobby and its general channel, where the printed account may post.
        let servers = try #require(parsed["servers"] as? [[String: Any]])
        let lobby = try #require(servers.first)
        #expect(Set(lobby.keys) == ["id", "name", "channels"])
        let channels = try #require(lobby["channels"] as? [[String: String]])
        #expect(channels.count >= 1 && channels.allSatisfy { Set($0.keys) == ["id", "name"] && $0["id"]?.count == 26 })
        let api = try #require(object["api"].flatMap(URL.init(string:)))
        var post = URLRequest(url: api.appendingPathComponent("channels/\(channels[0]["id"] ?? "")/messages"))
        post.httpMethod = "POST"
        post.setValue(object["token"], forHTTPHeaderField: "X-Session-Token")
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        post.httpBody = Data(#"{"content":"hello from the seeded world"}"#.utf8)
        let (_, posted) = try await URLSession.shared.data(for: post)
        #expect((posted as? HTTPURLResponse)?.statusCode == 200, "the printed account posts in the printed channel")
        let (body, response) = try await URLSession.shared.data(from: api)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let configuration = try #require(JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect((configuration["ws"] as? String)?.hasPrefix("ws://127.0.0.1:") == true)
        // The printed bot token authenticates the printed bot.
        var botRequest = URLRequest(url: api.appendingPathComponent("users/@me"))
        botRequest.setValue(object["bot_token"], forHTTPHeaderField: "X-Bot-Token")
        let (botBody, botResponse) = try await URLSession.shared.data(for: botRequest)
        #expect((botResponse as? HTTPURLResponse)?.statusCode == 200)
        let bot = try #require(JSONSerialization.jsonObject(with: botBody) as? [String: Any])
        #expect(bot["_id"] as? String == object["bot_id"])
        #expect((bot["bot"] as? [String: Any])?["owner"] as? String == object["user_id"])
        process.terminate()
        await process.exited()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(await lines.next() == nil, "nothing else on standard output")
    }

    @Test("serve --help shows the admin API with examples and says where every route is")
    func helpShowsTheAdminAPI() async throws {
        let process = ChildProcess()
        process.executableURL = try Executable.url
        process.arguments = ["serve", "--help"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        await process.exited()
        #expect(process.terminationStatus == 0)
        for example in [
            "curl -X POST ADMIN/messages", "ADMIN/drop-sockets", "curl ADMIN/state", "StoatReferenceServer.md",
        ] {
            #expect(text.contains(example), "serve --help lacks \(example)")
        }
    }

    @Test(
        "--events gateway serves Stoat's new events server: a client's Subscribe is refused; an unknown name is refused"
    )
    func serveGateway() async throws {
        let process = ChildProcess()
        process.executableURL = try Executable.url
        process.arguments = ["serve", "--port", "0", "--json", "--events", "gateway"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var lines = LineReader(output.fileHandleForReading).lines.makeAsyncIterator()
        let line = try #require(await lines.next())
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let api = try #require(object["api"] as? String)
        let token = try #require(object["token"] as? String)
        let run = try ConnectRun(["--api", api, "--token=\(token)", "--subscribe", "S"] + ConnectCommandTests.fast)
        let failed = await run.next { $0["type"] as? String == "replay_failed" }
        #expect(failed?["reason"] as? String == "unsupported")
        #expect(await run.quit() == 0)
        process.terminate()
        await process.exited()
        #expect(process.terminationStatus == 0)

        let refused = ChildProcess()
        refused.executableURL = try Executable.url
        refused.arguments = ["serve", "--events", "nope"]
        refused.standardError = Pipe()
        try refused.run()
        await refused.exited()
        #expect(refused.terminationStatus == 64, "a usage error")
    }
}
