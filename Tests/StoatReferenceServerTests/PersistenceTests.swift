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
        // A restart loses the debounced updates not yet committed, as stoatchat's in-memory queue does; this test is
        // about what the data file keeps, so the field is committed with the send.
        await first.setLastMessageIDLag(false)
        let message = try await first.postMessage(
            as: defaultAccount.userID, in: first.lobbyChannelID, content: "kept across restarts")
        let bot = first.defaultBot
        await first.stop()

        let second = try await ReferenceServer.forTest { $0.dataFile = file }
        #expect(second.defaultAccount == defaultAccount)
        #expect(second.lobbyServerID == lobby)
        #expect(second.defaultBot == bot)
        let history = try await second.http(
            .GET, "/channels/\(second.lobbyChannelID)/messages", token: defaultAccount.token)
        #expect(history.jsonArray?.first?["_id"] as? String == message.id)
        #expect(history.jsonArray?.first?["content"] as? String == "kept across restarts")
        #expect(await second.channel(id: second.lobbyChannelID)?.lastMessageID == message.id)
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
            let shape = DatasetShape.approximateReadyBytes(1_000_000)
            let servers = try await server.seedDataset(shape)
            #expect(servers.count == shape.servers)
            let ready = try await server.readyFrame(for: server.defaultAccount.userID)
            #expect(ready.count > 950_000, "\(ready.count)")
            #expect(ready.count < 1_050_000, "\(ready.count)")
            let parsed = try #require(try JSONSerialization.jsonObject(with: ready) as? [String: Any])
            #expect((parsed["servers"] as? [Any])?.count == shape.servers + 1)
            // The friends are Ready's users, the user last with their relations.
            let users = try #require(parsed["users"] as? [[String: Any]])
            #expect(users.count == shape.servers * shape.friendsPerServer + 1)
            #expect(users.last?["_id"] as? String == server.defaultAccount.userID)
            #expect((users.last?["relations"] as? [Any])?.count == shape.servers * shape.friendsPerServer)
        }
    }
}
