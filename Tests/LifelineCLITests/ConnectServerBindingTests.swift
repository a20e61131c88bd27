import Foundation
import StoatReferenceServer
import Testing

/// `lifeline connect --store` with two Stoat instances and one store directory: each account belongs to its
/// server, and a token never reaches another.
@Suite("lifeline connect: one store, two servers", .hangBound)
struct ConnectServerBindingTests {
    static let fast = ConnectCommandTests.fast

    @Test(
        "the same email and password on two servers: two accounts, each listed with its server, and B never receives A's token"
    )
    func twoServers() async throws {
        let serverA = try await ReferenceServer.start()
        let serverB = try await ReferenceServer.start()
        let account = serverA.defaultAccount
        let directory = ConnectAccountTests.StoreDirectory()
        let environment = ["LIFELINE_PASSWORD": account.password]
        let hostA = "127.0.0.1:\(serverA.apiURL.port ?? 0)"
        let hostB = "127.0.0.1:\(serverB.apiURL.port ?? 0)"
        func base(_ server: ReferenceServer) -> [String] {
            ["--api", server.apiURL.absoluteString, "--store", directory.path] + Self.fast
        }

        let onA = try ConnectRun(base(serverA) + ["--email", account.email], environment: environment)
        let createdA = try #require(await onA.next { $0["type"] as? String == "signin" })
        #expect(createdA["outcome"] as? String == "created")
        #expect(createdA["server"] as? String == "http://\(hostA)")
        #expect(await onA.transition(to: "CONNECTED") != nil)
        #expect(await onA.quit() == 0)
        let tokensA = await serverA.sessionTokensReceived().tokens
        #expect(!tokensA.isEmpty)

        // The same email on B: B's own account, created after B verified the password.
        let onB = try ConnectRun(base(serverB) + ["--email", account.email], environment: environment)
        let createdB = try #require(await onB.next { $0["type"] as? String == "signin" })
        #expect(createdB["outcome"] as? String == "created", "printed: \(onB.printed)")
        #expect(createdB["server"] as? String == "http://\(hostB)")
        #expect(await onB.transition(to: "CONNECTED") != nil)
        #expect(await onB.quit() == 0)
        #expect(await serverB.sessionTokensReceived().tokens.isDisjoint(with: tokensA), "B never received A's token")

        // Both are labelled demo: the label alone is ambiguous, and the refusal names the choices.
        let ambiguous = try ConnectRun(base(serverB) + ["--account", "demo"], environment: environment)
        let refused = try #require(await ambiguous.next { $0["type"] as? String == "login_failed" })
        let message = try #require(refused["message"] as? String)
        #expect(message.contains("demo@\(hostA)") && message.contains("demo@\(hostB)"), "\(message)")
        #expect(await ambiguous.exitStatus() == 1)

        // LABEL@HOST picks one: B's, opened with B's cached session.
        let picked = try ConnectRun(base(serverB) + ["--account", "demo@\(hostB)"], environment: environment)
        let opened = try #require(await picked.next { $0["type"] as? String == "signin" })
        #expect(opened["outcome"] as? String == "opened")
        #expect(opened["session"] as? String == "cached")
        #expect(opened["server"] as? String == "http://\(hostB)")
        #expect(await picked.transition(to: "CONNECTED") != nil)
        #expect(await picked.quit() == 0)

        // A's account through B's API: refused before anything is sent.
        let crossed = try ConnectRun(base(serverB) + ["--account", "demo@\(hostA)"], environment: environment)
        let other = try #require(await crossed.next { $0["type"] as? String == "signin" })
        #expect(other["outcome"] as? String == "otherServer")
        #expect(other["account_server"] as? String == "http://\(hostA)")
        #expect(await crossed.exitStatus() == 1)
        #expect(await serverB.sessionTokensReceived().tokens.isDisjoint(with: tokensA), "B never received A's token")

        // With neither --account nor --email, the store's only account of --api's server.
        let plain = try ConnectRun(base(serverA), environment: environment)
        let openedA = try #require(await plain.next { $0["type"] as? String == "signin" })
        #expect(openedA["outcome"] as? String == "opened")
        #expect(openedA["server"] as? String == "http://\(hostA)")
        #expect(await plain.transition(to: "CONNECTED") != nil)
        #expect(await plain.quit() == 0)
        await serverA.stop()
        await serverB.stop()
    }

    @Test("a Disabled login names the account's standing in login_failed: suspended, banned, or disabled")
    func disabledLoginReason() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let api = ["--api", server.apiURL.absoluteString] + Self.fast
        #expect(await server.suspendAccount(userID: account.userID))
        let suspended = try ConnectRun(
            api + ["--email", account.email], environment: ["LIFELINE_PASSWORD": account.password])
        let failure = try #require(await suspended.next { $0["type"] as? String == "login_failed" })
        #expect(failure["code"] as? String == "Disabled")
        #expect(failure["reason"] as? String == "suspended")
        #expect(failure["message"] as? String == "Your account has been suspended.")
        #expect(await suspended.exitStatus() == 1)

        // The store's sign-in says the same.
        let directory = ConnectAccountTests.StoreDirectory()
        let viaStore = try ConnectRun(
            api + ["--store", directory.path, "--email", account.email],
            environment: ["LIFELINE_PASSWORD": account.password])
        let storeFailure = try #require(await viaStore.next { $0["type"] as? String == "login_failed" })
        #expect(storeFailure["code"] as? String == "Disabled")
        #expect(storeFailure["reason"] as? String == "suspended")
        #expect(await viaStore.exitStatus() == 1)

        // Flags 0: disabled by its owner.
        let owner = try await server.addAccount(email: "owner@example.com", password: "pw-owner", username: "owner")
        #expect(await server.disableAccount(userID: owner.userID))
        let disabled = try ConnectRun(
            api + ["--email", owner.email], environment: ["LIFELINE_PASSWORD": owner.password])
        let plain = try #require(await disabled.next { $0["type"] as? String == "login_failed" })
        #expect(plain["reason"] as? String == "disabled")
        #expect(await disabled.exitStatus() == 1)
        await server.stop()
    }
}
