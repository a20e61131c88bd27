import Foundation
import Lifeline
import LifelineCore
import LifelineStoatStore
import LifelineStore
import StoatReferenceServer
import Testing

@testable import LifelineStoat

@Suite("The device's accounts across servers", .serialized, .hangBound)
@MainActor
struct AccountsModelTests {
    @Test(
        "Two servers' accounts signed in at once: both stay connected, each with its unread count; the shown one switches"
    )
    func twoServers() async throws {
        let first = try await ReferenceServer.start()
        let second = try await ReferenceServer.start()
        let stores = TemporaryStore()
        let model = AccountsModel(store: stores.store) { url in
            StoatClient(apiURL: url, configuration: .patient, network: ManualNetworkMonitor(.online))
        }
        let running = Task { await model.run() }
        #expect(model.accounts.isEmpty)
        #expect(model.shown == nil)

        // The same email on two servers: two accounts of the device.
        for server in [first, second] {
            let outcome = await model.signIn(
                apiURL: server.apiURL, email: server.defaultAccount.email, password: server.defaultAccount.password)
            #expect(outcome.session != nil, "got \(outcome.code)")
        }
        let firstID = stores.store.accountID(
            email: first.defaultAccount.email, server: try #require(ServerIdentity(first.apiURL.absoluteString)))
        let secondID = stores.store.accountID(
            email: second.defaultAccount.email, server: try #require(ServerIdentity(second.apiURL.absoluteString)))
        #expect(Set(model.accounts.map(\.id)) == [firstID, secondID])
        #expect(model.shownID == firstID)
        await until { model.accounts.allSatisfy { $0.state == .connected && $0.unreadChats != nil } }
        let before = Dictionary(uniqueKeysWithValues: model.accounts.map { ($0.id, $0.unreadChats ?? 0) })

        // A message for the account that is not shown: its count rises while it is in the background.
        let friend = try await second.addUser(username: "friend")
        try await second.join(userID: friend.userID, serverID: second.lobbyServerID)
        try await second.postMessage(as: friend.userID, in: second.lobbyChannelID, content: "psst")
        await until { (model.accounts.first { $0.id == secondID }?.unreadChats ?? 0) > (before[secondID] ?? 0) }
        #expect(model.accounts.first { $0.id == firstID }?.unreadChats == before[firstID])
        #expect(model.totalUnreadChats == model.accounts.reduce(0) { $0 + ($1.unreadChats ?? 0) })

        #expect(model.show(secondID))
        #expect(model.shownID == secondID)
        #expect(model.shown?.client === model.client(for: secondID))
        #expect(!model.show("not an account"))

        // Signed out: listed still (its store stays), without counts; the other account is shown.
        await model.signOut(secondID)
        let signedOut = try #require(model.accounts.first { $0.id == secondID })
        #expect(!signedOut.isSignedIn)
        #expect(signedOut.unreadChats == nil)
        #expect(model.shownID == firstID)
        #expect(model.client(for: secondID) == nil)

        running.cancel()
        await running.value
        await first.stop()
        await second.stop()
    }
}
