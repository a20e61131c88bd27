import Foundation
import GRDB
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat
@testable import LifelineStoatStore
@testable import LifelineStore

/// A directory of account stores that cost little to unlock, removed at the end.
final class TemporaryStore: Sendable {
    let directory: URL
    let store: AccountStore

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-cache-\(UUID().uuidString)")
        store = AccountStore(
            directory: directory,
            configuration: AccountStore.Configuration(keyDerivation: .unsafeUncheckedPBKDF2SHA512(rounds: 1_000)))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// A `StoatClient` on a test clock against a reference server, started and stopped by the test.
final class CacheHarness: Sendable {
    let server: ReferenceServer
    let clock = TestClock()
    let client: StoatClient
    let recorder: SnapshotRecorder
    private let runner: Task<Void, Never>

    init(server: ReferenceServer, apiURL: URL? = nil) {
        self.server = server
        client = StoatClient(
            apiURL: apiURL ?? server.apiURL, configuration: .patientREST(),
            network: ManualNetworkMonitor(.online), clock: clock,
            random: SeededRandomNumberGenerator(seed: 11))
        recorder = SnapshotRecorder(client.session.states)
        let client = client
        runner = Task { await client.run() }
    }

    /// Stops the client: everything the cache held is written to the store before this returns.
    func stop() async {
        runner.cancel()
        await runner.value
    }

    /// Waits until `condition` holds for the chat list.
    func chats(_ condition: @escaping @Sendable ([Chat]) -> Bool) async -> [Chat] {
        for await chats in client.chatUpdates where condition(chats) { return chats }
        return []
    }

    /// Waits until `condition` holds for a channel's history.
    func history(_ channel: String, _ condition: @escaping @Sendable (ChannelHistory) -> Bool) async -> ChannelHistory?
    {
        for await history in client.historyUpdates(of: channel) where condition(history) { return history }
        return nil
    }
}

extension CacheHarness {
    /// Connects the default account with `channel` open and fetched, applies `fault`, drops every socket,
    /// and has another user post in the channel while the client is away; returns that message.
    func outage(in channel: String, fault: () async -> Void) async throws -> StoatMessage {
        var catchUps = client.catchUps.makeAsyncIterator()
        await client.resume(
            SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID))
        await recorder.next(.connected)
        client.open(channel)
        _ = await client.history(of: channel)
        // The first catch-up done before the fault: it fetches the channel when it was open by its plan, and a
        // fetch still in flight would meet the fault meant for the reconnect.
        _ = await catchUps.next()
        await fault()
        _ = await server.dropAllSockets()
        let friend = try await server.addUser(username: "friend")
        _ = try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        return try await server.postMessage(as: friend.userID, in: channel, content: "sent during the outage")
    }
}

@Suite("The account cache against the reference server", .hangBound)
struct StoatClientCacheTests {
    @Test("a real session fills the store; the next run shows those chats and messages with the server gone")
    func storeSurvivesOffline() async throws {
        let server = try await ReferenceServer.start()
        let stores = TemporaryStore()
        let account = server.defaultAccount
        let general = server.lobbyChannelID
        let first = CacheHarness(server: server)
        guard
            case .created = await first.client.signIn(
                to: stores.store, email: account.email, password: account.password)
        else {
            Issue.record("the first sign-in did not create the store")
            return
        }
        await first.recorder.next(.connected)
        let friend = try await server.addUser(username: "friend")
        _ = try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        for text in ["one", "two", "three"] {
            try await server.postMessage(as: friend.userID, in: general, content: text)
        }
        _ = await first.history(general) { $0.messages.count == 3 }
        await first.stop()
        await server.stop()

        let second = CacheHarness(server: server)
        guard
            case .opened(_, .cached) = await second.client.signIn(
                to: stores.store, email: account.email, password: account.password)
        else {
            Issue.record("the second sign-in did not open the store with the cached session")
            return
        }
        // The first screen came from the store: the server is gone.
        let chat = try #require(second.client.chats.first { $0.id == general })
        #expect(chat.name == "general")
        #expect(chat.lastMessage?.content == "three")
        let history = await second.client.history(of: general)
        #expect(history.messages.map(\.content) == ["one", "two", "three"])
        #expect(history.isStale)
        await second.stop()
    }

    @Test("messages posted while the socket was down appear in the open channel after reconnecting")
    func outageRefetch() async throws {
        let server = try await ReferenceServer.start()
        let harness = CacheHarness(server: server)
        let general = server.lobbyChannelID
        let missed = try await harness.outage(in: general) { await server.refuseNextUpgrades(1) }
        #expect(!harness.client.cachedHistory(of: general).messages.contains { $0.id == missed.id })
        // Retry (refused), then retry again (accepted): the open channel is refetched after CONNECTED.
        var disconnected = try #require(await harness.recorder.next(.disconnected))
        harness.clock.advance(to: TestClock.Instant(offset: try #require(disconnected.nextRetry)))
        disconnected = try #require(await harness.recorder.next { $0.state == .disconnected && $0.failures == 2 })
        harness.clock.advance(to: TestClock.Instant(offset: try #require(disconnected.nextRetry)))
        await harness.recorder.next(.connected)
        let history = await harness.history(general) { history in history.messages.contains { $0.id == missed.id } }
        #expect(history?.isStale == false)
        await harness.stop()
        await server.stop()
    }

    @Test("an open channel empty at sign-in is fresh after the first catch-up, and stays fresh as messages arrive")
    func emptyOpenChannelFresh() async throws {
        let server = try await ReferenceServer.start()
        let harness = CacheHarness(server: server)
        let general = server.lobbyChannelID
        var catchUps = harness.client.catchUps.makeAsyncIterator()
        harness.client.open(general)
        await harness.client.resume(
            SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID))
        await harness.recorder.next(.connected)
        _ = await catchUps.next()
        #expect(harness.client.cachedHistory(of: general).messages.isEmpty)
        #expect(!harness.client.cachedHistory(of: general).isStale)
        let friend = try await server.addUser(username: "friend")
        _ = try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        let posted = try await server.postMessage(as: friend.userID, in: general, content: "hello")
        let history = await harness.history(general) { history in history.messages.contains { $0.id == posted.id } }
        #expect(history?.isStale == false)
        await harness.stop()
        await server.stop()
    }

    @Test("an open channel whose refetch after reconnecting fails is fetched again, 1 s then 2 s later, until fresh")
    func refetchRetried() async throws {
        let server = try await ReferenceServer.start()
        let harness = CacheHarness(server: server)
        let general = server.lobbyChannelID
        let missed = try await harness.outage(in: general) { await server.failNextMessageQueries(2) }
        let disconnected = try #require(await harness.recorder.next(.disconnected))
        harness.clock.advance(to: TestClock.Instant(offset: try #require(disconnected.nextRetry)))
        await harness.recorder.next(.connected)
        // The refetch fails (the server's InternalError) and waits 1 s on the client's clock, then 2 s.
        let failedAt = harness.clock.now
        await harness.clock.waitForSleep(until: failedAt.advanced(by: .seconds(1)))
        #expect(harness.client.cachedHistory(of: general).isStale)
        harness.clock.advance(to: failedAt.advanced(by: .seconds(1)))
        await harness.clock.waitForSleep(until: failedAt.advanced(by: .seconds(3)))
        harness.clock.advance(to: failedAt.advanced(by: .seconds(3)))
        let history = await harness.history(general) { history in history.messages.contains { $0.id == missed.id } }
        #expect(history?.isStale == false)
        await harness.stop()
        await server.stop()
    }

    @Test("after a logout the stored session is gone: the next sign-in verifies the password (LOGIN_UNCACHED)")
    func logoutForgetsSession() async throws {
        let server = try await ReferenceServer.start()
        let stores = TemporaryStore()
        let account = server.defaultAccount
        let harness = CacheHarness(server: server)
        _ = await harness.client.signIn(to: stores.store, email: account.email, password: account.password)
        await harness.recorder.next(.connected)
        await harness.client.session.logOut()
        await harness.recorder.next(.ready)
        // The stored session is cleared before READY is shown to the next sign-in.
        guard
            case .opened(_, .verified) = await harness.client.signIn(
                to: stores.store, email: account.email, password: account.password)
        else {
            Issue.record("the sign-in after a logout did not verify the password")
            return
        }
        // Only CONNECTED is waited for: under load LOGGING_IN and CONNECTED can arrive in one merged snapshot,
        // which a wait for LOGGING_IN would consume whole.
        await harness.recorder.next(.connected)
        let logins = await harness.recorder.seen.flatMap(\.transitions).filter { $0.event == .loginUncached }
        #expect(logins.count == 2)
        await harness.stop()
        await server.stop()
    }

    @Test("two observers of the events both get every message, in order")
    func twoObservers() async throws {
        let server = try await ReferenceServer.start()
        let harness = CacheHarness(server: server)
        let general = server.lobbyChannelID
        let contents = (1...20).map { "message \($0)" }
        func collect() -> Task<[String], any Error> {
            let events = harness.client.events
            return Task {
                var seen: [String] = []
                for try await event in events {
                    if case .message(let message) = event, let content = message.content { seen.append(content) }
                    if seen.count == contents.count { break }
                }
                return seen
            }
        }
        let observers = [collect(), collect()]
        await harness.client.resume(
            SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID))
        await harness.recorder.next(.connected)
        let friend = try await server.addUser(username: "friend")
        _ = try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        for content in contents { try await server.postMessage(as: friend.userID, in: general, content: content) }
        for observer in observers { #expect(try await observer.value == contents) }
        #expect(harness.client.cachedHistory(of: general).messages.suffix(20).map(\.content) == contents)
        await harness.stop()
        await server.stop()
    }

    @Test("a send joins the history at once, and its own event does not add it twice")
    func send() async throws {
        let server = try await ReferenceServer.start()
        let harness = CacheHarness(server: server)
        let general = server.lobbyChannelID
        await harness.client.resume(
            SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID))
        await harness.recorder.next(.connected)
        let sent = try await harness.client.sendAndWait(OutgoingMessage(content: "hello"), to: general)
        #expect(harness.client.cachedHistory(of: general).messages.map(\.id) == [sent.id])
        #expect(harness.client.chats.first?.id == general)
        // The socket's Message event for it arrives; the history still holds it once.
        let fresh = try await harness.client.refreshHistory(of: general)
        #expect(fresh.messages.map(\.id) == [sent.id])
        await harness.stop()
        await server.stop()
    }

    @Test("a full disk: the batch is refused and counted, the session goes on, and it is written once space returns")
    func fullDisk() async throws {
        let server = try await ReferenceServer.start()
        let stores = TemporaryStore()
        let account = server.defaultAccount
        let harness = CacheHarness(server: server)
        let outcome = await harness.client.signIn(to: stores.store, email: account.email, password: account.password)
        let database = try #require(outcome.database)
        await harness.recorder.next(.connected)
        try await database.queue.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        let friend = try await server.addUser(username: "friend")
        _ = try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        let long = (1...10).map { String(repeating: "\($0 % 10)", count: 1_900) }  // Stoat's limit is 2000
        for content in long {
            try await server.postMessage(as: friend.userID, in: server.lobbyChannelID, content: content)
        }
        await waitUntil { harness.client.cacheStatistics.failedWrites > 0 }
        #expect(harness.snapshot.state == .connected)
        try await database.queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA max_page_count = 1073741823") }
        try await server.postMessage(as: friend.userID, in: server.lobbyChannelID, content: "after")
        _ = await harness.history(server.lobbyChannelID) { $0.messages.last?.content == "after" }
        await harness.stop()  // writes what is left, then closes the store
        let reopened = await stores.store.signIn(
            email: account.email, password: account.password, verifier: harness.client.passwordVerifier)
        let stored = try await #require(reopened.database).messages(
            inChat: server.lobbyChannelID, limit: 20, order: .oldestFirst)
        // Messages sent within one millisecond are ordered by their ids, not by the store.
        #expect(stored.sorted { $0.id < $1.id }.map(\.body) == long + ["after"])
        await server.stop()
    }
}

extension CacheHarness {
    var snapshot: SessionSnapshot { client.session.snapshot }
}
