import Foundation
import StoatReferenceServer
import Testing

/// `lifeline connect` with a real account's data: secrets kept off the command line, the store's accounts,
/// the first screen, messages, sending and histories.
@Suite("lifeline connect: the account", .hangBound)
struct ConnectAccountTests {
    static let fast = ConnectCommandTests.fast

    /// A temporary store directory, removed at the end.
    final class StoreDirectory: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-connect-\(UUID())").path
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test("the token and the password come from the environment or standard input, and are never printed")
    func secretsOffTheCommandLine() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let api = ["--api", server.apiURL.absoluteString] + Self.fast

        let byEnvironment = try ConnectRun(api, environment: ["LIFELINE_TOKEN": account.token])
        #expect(await byEnvironment.transition(to: "CONNECTING")?["event"] as? String == "LOGIN_CACHED")
        #expect(await byEnvironment.transition(to: "CONNECTED") != nil)
        #expect(await byEnvironment.quit() == 0)
        #expect(!byEnvironment.printed.contains { $0.contains(account.token) })

        let byInput = try ConnectRun(api + ["--email", account.email, "--password-stdin"])
        byInput.send(account.password)
        #expect(await byInput.transition(to: "LOGGING_IN")?["event"] as? String == "LOGIN_UNCACHED")
        #expect(await byInput.transition(to: "CONNECTED") != nil)
        byInput.send("retry")  // the first line was the password: this one is a command
        let command = await byInput.next { $0["type"] as? String == "command" }
        #expect(command?["command"] as? String == "retry")
        #expect(await byInput.quit() == 0)
        #expect(!byInput.printed.contains { $0.contains(account.password) })
        await server.stop()
    }

    @Test(
        "the store: created, then opened by the password alone or by label, first screen with last messages, messages, send, history"
    )
    func storeAccount() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let general = server.lobbyChannelID
        let friend = try await server.addUser(username: "friend")
        _ = try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        try await server.postMessage(as: friend.userID, in: general, content: "hello")
        let directory = StoreDirectory()
        let environment = ["LIFELINE_PASSWORD": account.password]
        let base = ["--api", server.apiURL.absoluteString, "--store", directory.path] + Self.fast

        let first = try ConnectRun(base + ["--email", account.email], environment: environment)
        #expect(await first.next { $0["type"] as? String == "signin" }?["outcome"] as? String == "created")
        #expect(await first.transition(to: "CONNECTED") != nil)
        first.send("history \(general)")
        let history = try #require(await first.next { $0["type"] as? String == "history" })
        #expect(history["channel"] as? String == general)
        #expect(history["stale"] as? Bool == false)
        let messages = try #require(history["messages"] as? [[String: Any]])
        #expect(messages.last?["content"] as? String == "hello")
        #expect(messages.last?["author"] as? String == friend.userID)
        first.send("send \(general) hi there, friend")
        let mine = try #require(await first.next { $0["type"] as? String == "message" })
        #expect(mine["content"] as? String == "hi there, friend")
        #expect(mine["author"] as? String == account.userID)
        #expect(mine["channel"] as? String == general)
        try await server.postMessage(as: friend.userID, in: general, content: "second")
        let theirs = try #require(await first.next { $0["type"] as? String == "message" })
        #expect(theirs["content"] as? String == "second")
        #expect(await first.quit() == 0)

        // The password alone opens the store's only account; its first screen has the last message.
        let second = try ConnectRun(base, environment: environment)
        let opened = try #require(await second.next { $0["type"] as? String == "signin" })
        #expect(opened["outcome"] as? String == "opened")
        #expect(opened["session"] as? String == "cached")
        let screen = try #require(await second.next { $0["type"] as? String == "chats" })
        let recent = try #require(screen["recent"] as? [[String: Any]])
        #expect(recent.first?["id"] as? String == general)
        #expect(recent.first?["name"] as? String == "general")
        #expect(recent.first?["last_message"] as? String == "second")
        #expect(recent.contains { $0["last_message"] is NSNull }, "a chat without a message shows null")
        #expect(await second.transition(to: "CONNECTED") != nil)
        #expect(await second.quit() == 0)

        // The account is listed under the user's name.
        let byLabel = try ConnectRun(base + ["--account", "demo"], environment: environment)
        #expect(await byLabel.next { $0["type"] as? String == "signin" }?["outcome"] as? String == "opened")
        #expect(await byLabel.quit() == 0)
        let unknown = try ConnectRun(base + ["--account", "nobody"], environment: environment)
        let refused = try #require(await unknown.next { $0["type"] as? String == "login_failed" })
        #expect((refused["message"] as? String)?.contains("demo") == true, "names the accounts it has")
        #expect(await unknown.exitStatus() == 1)
        await server.stop()
    }

    @Test("the store path answers MFA with LIFELINE_TOTP, and shows BlockedByShield's support link")
    func storeSecondFactorAndShield() async throws {
        // The server's clock stands still in the middle of a 30-second TOTP step: like stoatchat, it takes
        // only the code of the step the MFA ticket was made in, and a loaded machine can take longer than
        // the rest of a running step between computing the code and the login.
        let pinned = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 30).rounded(.down) * 30 + 15)
        let server = try await ReferenceServer.start(.init(now: { pinned }))
        let secret = Array("lifeline-totp-secret".utf8)
        let mfa = try await server.addAccount(
            email: "mfa@example.com", password: "correct horse", username: "mfa_user", totpSecret: secret)
        let directory = StoreDirectory()
        let base = ["--api", server.apiURL.absoluteString, "--store", directory.path] + Self.fast
        let code = TOTP.code(secret: secret, at: await server.now())
        let withCode = try ConnectRun(
            base + ["--email", mfa.email], environment: ["LIFELINE_PASSWORD": mfa.password, "LIFELINE_TOTP": code])
        let step = try #require(await withCode.next { $0["type"] as? String == "signin" })
        #expect(step["outcome"] as? String == "secondFactorRequired")
        #expect((step["methods"] as? [String])?.contains("totp") == true)
        let created = await withCode.next { $0["type"] as? String == "signin" }
        #expect(created?["outcome"] as? String == "created", "printed: \(withCode.printed)")
        #expect(await withCode.transition(to: "CONNECTED") != nil, "printed: \(withCode.printed)")
        #expect(await withCode.quit() == 0)

        await server.answerNextLogins(with: .blockedByShield)
        let blocked = try ConnectRun(
            base + ["--email", server.defaultAccount.email], environment: ["LIFELINE_PASSWORD": "whatever"])
        let failure = try #require(await blocked.next { $0["type"] as? String == "login_failed" })
        #expect(failure["support_url"] as? String == "https://support.stoat.chat/kb/safety/blocked-for-spam")
        #expect(await blocked.exitStatus() == 1)
        await server.stop()
    }

    @Test("human output shows what the server sent without letting it drive the terminal")
    func terminalSafe() async throws {
        let server = try await ReferenceServer.start()
        let friend = try await server.addUser(username: "friend")
        _ = try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString] + Self.fast,
            environment: ["LIFELINE_TOKEN": server.defaultAccount.token],
            json: false)
        while let line = await run.nextLine(), !line.contains("CONNECTED") {}
        try await server.postMessage(
            as: friend.userID, in: server.lobbyChannelID, content: "marker \u{1B}]0;owned\u{07}\u{1B}[2J\rhidden")
        var shown: String?
        while let line = await run.nextLine() {
            if line.contains("marker") {
                shown = line
                break
            }
        }
        let line = try #require(shown)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(line.debugDescription)")
        #expect(line.contains("\u{FFFD}]0;owned"))
        #expect(line.contains("hidden"))
        #expect(await run.quit() == 0)
        await server.stop()
    }
}
