import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat
@testable import LifelineStoatStore
@testable import LifelineStore

@Suite("Drafts: sealed in the account's store, restored at sign-in, cleared when sent", .serialized, .hangBound)
@MainActor
struct DraftTests {
    @Test("setDraft is in the store when it returns; the next sign-in restores it; a send clears it in both")
    func storedRestoredCleared() async throws {
        let server = try await ReferenceServer.start()
        let stores = TemporaryStore()
        let account = server.defaultAccount
        let general = server.lobbyChannelID

        let first = CacheHarness(server: server)
        let created = await first.client.signIn(to: stores.store, email: account.email, password: account.password)
        let database = try #require(created.database)
        try await first.client.setDraft("half a thought", in: general)
        #expect(try await database.drafts().drafts == [general: "half a thought"])
        #expect(first.client.draft(in: general) == "half a thought")
        try await first.client.setDraft("", in: general)
        #expect(try await database.drafts().drafts.isEmpty)
        try await first.client.setDraft("kept for later", in: general)
        await first.stop()

        let second = CacheHarness(server: server)
        #expect(second.client.drafts.isEmpty)
        _ = await second.client.signIn(to: stores.store, email: account.email, password: account.password)
        #expect(second.client.drafts == [general: "kept for later"])
        await second.recorder.next(.connected)
        _ = try await second.client.send("kept for later", to: general)
        #expect(second.client.draft(in: general).isEmpty)
        await second.stop()

        let third = CacheHarness(server: server)
        let reopened = await third.client.signIn(to: stores.store, email: account.email, password: account.password)
        #expect(third.client.drafts.isEmpty)
        #expect(try await #require(reopened.database).drafts().drafts.isEmpty)
        await third.stop()
        await server.stop()
    }

    @Test("ChannelModel.draft is the stored draft: typed text is kept at once and stored by the client's run")
    func channelModelDraft() async throws {
        let server = try await ReferenceServer.start()
        let stores = TemporaryStore()
        let account = server.defaultAccount
        let general = server.lobbyChannelID

        let first = CacheHarness(server: server)
        _ = await first.client.signIn(to: stores.store, email: account.email, password: account.password)
        let model = StoatClientModel(client: first.client).channel(general)
        let showing = Task { await model.run() }
        #expect(model.draft.isEmpty)
        model.draft = "h"
        model.draft = "hello there"
        #expect(first.client.draft(in: general) == "hello there")
        // Another way in (the command line, another view) changes what the composer shows.
        try await first.client.setDraft("changed elsewhere", in: general)
        await until { model.draft == "changed elsewhere" }
        model.draft = "typed last"
        showing.cancel()
        await showing.value
        // The run's end writes what changed.
        await first.stop()

        let second = CacheHarness(server: server)
        _ = await second.client.signIn(to: stores.store, email: account.email, password: account.password)
        let restored = StoatClientModel(client: second.client).channel(general)
        #expect(restored.draft == "typed last")
        // Sending the draft clears it.
        await second.recorder.next(.connected)
        await restored.sendDraft()
        #expect(restored.draft.isEmpty)
        #expect(second.client.draft(in: general).isEmpty)
        await second.stop()
        await server.stop()
    }

    @Test("A message the store cannot keep gives its text back to ChannelModel's draft")
    func refusedSendKeepsDraft() async throws {
        let server = try await ReferenceServer.start()
        let stores = TemporaryStore()
        let account = server.defaultAccount
        let general = server.lobbyChannelID
        let harness = CacheHarness(server: server)
        let outcome = await harness.client.signIn(to: stores.store, email: account.email, password: account.password)
        let database = try #require(outcome.database)
        let model = StoatClientModel(client: harness.client).channel(general)
        model.draft = "not to be lost"
        // The store closed under the client: the outbox cannot keep the message, so it is not queued.
        try database.close()
        await model.sendDraft()
        #expect(model.lastError?.code == .storageFailed)
        #expect(model.pending.isEmpty)
        #expect(model.draft == "not to be lost")
        #expect(harness.client.draft(in: general) == "not to be lost")
        await harness.stop()
        await server.stop()
    }

    @Test("Without a store, drafts live in memory until a logout")
    func memoryOnly() async throws {
        let server = try await ReferenceServer.start()
        let harness = CacheHarness(server: server)
        let account = server.defaultAccount
        await harness.client.resume(SessionCredentials(token: account.token, userID: account.userID))
        await harness.recorder.next(.connected)
        try await harness.client.setDraft("only here", in: server.lobbyChannelID)
        #expect(harness.client.drafts == [server.lobbyChannelID: "only here"])
        #expect(await harness.client.logOut())
        for await drafts in harness.client.draftUpdates where drafts.isEmpty { break }
        #expect(harness.client.drafts.isEmpty)
        await harness.stop()
        await server.stop()
    }
}
