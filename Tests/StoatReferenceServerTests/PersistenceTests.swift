import Foundation
import Testing

@testable import StoatReferenceServer

@Suite("Persistence and datasets")
struct PersistenceTests {
    @Test("With a data file, accounts, sessions, users and data survive a restart")
    func survivesRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.sqlite").path
        let first = try await ReferenceServer.forTest { $0.dataFile = file }
        let added = try await first.addAccount(email: "kept@lifeline.test", password: "pw", username: "kept")
        _ = try await first.http(
            .POST, "/onboard/complete", token: first.pendingAccount.token, json: #"{"username":"onboarded"}"#)
        let defaultAccount = first.defaultAccount
        let lobby = first.lobbyServerID
        await first.stop()

        let second = try await ReferenceServer.forTest { $0.dataFile = file }
        #expect(second.defaultAccount == defaultAccount)
        #expect(second.lobbyServerID == lobby)
        #expect(try await second.http(.GET, "/users/@me", token: added.token).json?["username"] as? String == "kept")
        let pending = try await second.http(.GET, "/users/@me", token: second.pendingAccount.token)
        #expect(pending.json?["username"] as? String == "onboarded")
        let login = try await second.http(
            .POST, "/auth/session/login", json: #"{"email":"kept@lifeline.test","password":"pw"}"#)
        #expect(login.json?["result"] as? String == "Success")
        let socket = try await second.connectReady(token: defaultAccount.token)
        await socket.close()
        await second.stop()
    }

    @Test("A dataset shaped for about 1 MB gives the default user a Ready of about 1 MB")
    func datasetSize() async throws {
        try await withServer { server throws in
            let servers = try await server.seedDataset(.approximateReadyBytes(1_000_000))
            #expect(servers.count == 27)
            let ready = try await server.readyFrame(for: server.defaultAccount.userID)
            #expect(ready.count > 850_000)
            #expect(ready.count < 1_150_000)
            let parsed = try #require(try JSONSerialization.jsonObject(with: ready) as? [String: Any])
            #expect((parsed["servers"] as? [Any])?.count == 28)
        }
    }
}
