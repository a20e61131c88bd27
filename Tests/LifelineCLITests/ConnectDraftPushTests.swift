import Foundation
import StoatReferenceServer
import Testing

@testable import LifelineCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `lifeline connect --json`'s `draft` and `push` commands: a draft in the store before its `command` line,
/// printed at the next start, cleared by `draft CHANNEL`; a Web Push subscription sent once CONNECTED.
@Suite("lifeline connect: drafts and push", .hangBound)
struct ConnectDraftPushTests {
    static let fast = ConnectCommandTests.fast

    /// The `command` line answering `command`.
    static func answer(_ run: ConnectRun, to command: String) async -> [String: Any]? {
        await run.next { $0["type"] as? String == "command" && $0["command"] as? String == command }
    }

    @Test(
        "draft CHANNEL TEXT is stored before its command line (kill -9 right after keeps it), printed at start, cleared by draft CHANNEL"
    )
    func drafts() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let general = server.lobbyChannelID
        let directory = ConnectAccountTests.StoreDirectory()
        let environment = ["LIFELINE_PASSWORD": account.password]
        let base = ["--api", server.apiURL.absoluteString, "--store", directory.path] + Self.fast

        let create = try ConnectRun(base + ["--email", account.email], environment: environment)
        #expect(await create.next { $0["type"] as? String == "signin" }?["outcome"] as? String == "created")
        create.send("draft \(general) half a thought,  with spaces")
        let accepted = try #require(await Self.answer(create, to: "draft \(general) half a thought,  with spaces"))
        #expect(accepted["accepted"] as? Bool == true)
        kill(create.process.processIdentifier, SIGKILL)
        #expect(await create.exitStatus() == -SIGKILL)

        let reopen = try ConnectRun(base, environment: environment)
        #expect(await reopen.next { $0["type"] as? String == "signin" }?["outcome"] as? String == "opened")
        let draft = try #require(await reopen.next { $0["type"] as? String == "draft" })
        #expect(draft["channel"] as? String == general)
        #expect(draft["text"] as? String == "half a thought,  with spaces")
        reopen.send("draft \(general)")
        #expect(await Self.answer(reopen, to: "draft \(general)")?["accepted"] as? Bool == true)
        #expect(await reopen.quit() == 0)

        let cleared = try ConnectRun(base, environment: environment)
        #expect(await cleared.transition(to: "CONNECTED") != nil)
        cleared.send("draft \(general) a new one")
        #expect(await Self.answer(cleared, to: "draft \(general) a new one")?["accepted"] as? Bool == true)
        // Start-up's draft lines come before any command is read.
        #expect(!cleared.printed.contains { $0.contains(#""type":"draft""#) }, "nothing was stored when it started")
        #expect(await cleared.quit() == 0)
        await server.stop()
    }

    @Test("push ENDPOINT P256DH AUTH subscribes once CONNECTED and prints the push line; a short one is refused")
    func push() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString] + Self.fast, environment: ["LIFELINE_TOKEN": account.token])
        #expect(await run.transition(to: "CONNECTED") != nil)
        let command = "push https://push.example/device BKEY AUTHSECRET"
        run.send(command)
        // The command's line and the subscription's come in either order: the command is answered once the
        // subscription was sent, and the push line is printed when its change is observed.
        var answer: [String: Any]?
        var subscribed = false
        _ = await run.next { line in
            if line["type"] as? String == "command", line["command"] as? String == command { answer = line }
            if line["type"] as? String == "push", line["state"] as? String == "subscribed" { subscribed = true }
            return answer != nil && subscribed
        }
        #expect(answer?["accepted"] as? Bool == true)
        #expect(subscribed)
        let held = await server.pushSubscriptions()
        #expect(held.map(\.subscription.endpoint) == ["https://push.example/device"])
        #expect(held.first?.subscription.p256dh == "BKEY")
        #expect(held.first?.subscription.auth == "AUTHSECRET")
        run.send("push https://push.example/device BKEY")
        let refused = try #require(await Self.answer(run, to: "push https://push.example/device BKEY"))
        #expect(refused["accepted"] as? Bool == false)
        #expect((refused["reason"] as? String)?.contains("auth") == true)
        #expect(await run.quit() == 0)
        await server.stop()
    }
}
