import AsyncHTTPClient
import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Synchronization
import Testing

@testable import LifelineStoat
@testable import LifelineStoatStore

/// A client on a test clock against a reference server with a small world: the lobby's general channel, a
/// second text channel, a direct message with a friend who posts in all three.
final class CatchUpWorld: Sendable {
    let server: ReferenceServer
    let clock = TestClock()
    let client: StoatClient
    let recorder: SnapshotRecorder
    let friend: SeededAccount
    let general: String
    let random: String
    let dm: String
    /// Every event of the client's message stream, from its creation.
    let stream = EventList()
    let reports: AsyncStream<CatchUpReport>
    /// The client's own HTTP client, shut down before the server stops: a pooled connection that never carried
    /// a request (the pool opens one for a request another connection then serves) would hold the server's
    /// graceful shutdown until the pool's idle timeout.
    let http = HTTPClient(
        eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: StoatAPI.httpClientConfiguration())
    private let runner: Task<Void, Never>
    private let reader: Task<Void, Never>

    init(
        server: ReferenceServer? = nil, catchUp: CatchUpPolicy = .standard, historyLimit: Int = 100,
        readyFields: [String] = [], fetchedUserLimit: Int = 1_000
    ) async throws {
        let server = if let server { server } else { try await ReferenceServer.start() }
        // These tests pin the catch-up's paging, resuming and re-verification against a field written with the
        // message: the server's lag is off and the client runs no second pass. LaggingCatchUpTests covers the lag.
        await server.setLastMessageIDLag(false)
        var catchUp = catchUp
        catchUp.settleDelay = .zero
        self.server = server
        friend = try await server.addUser(username: "friend")
        try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        try await server.makeFriends(server.defaultAccount.userID, friend.userID)
        general = server.lobbyChannelID
        random = try await server.addTextChannel(serverID: server.lobbyServerID, name: "random").id
        dm = try await server.openDirectMessage(server.defaultAccount.userID, friend.userID).id
        client = StoatClient(
            apiURL: server.apiURL,
            configuration: .patientREST(
                StoatClient.Configuration(
                    connection: .init(readyFields: readyFields), historyLimit: historyLimit, catchUp: catchUp,
                    fetchedUserLimit: fetchedUserLimit)),
            network: ManualNetworkMonitor(.online), clock: clock, random: SeededRandomNumberGenerator(seed: 21),
            httpClient: http)
        recorder = SnapshotRecorder(client.session.states)
        reports = client.catchUps
        let client = client
        let stream = self.stream
        let messages = client.messages
        reader = Task {
            do {
                for try await event in messages { stream.append(event) }
            } catch {}
        }
        runner = Task { await client.run() }
    }

    var account: SeededAccount { server.defaultAccount }

    /// Connects the default account and waits for the first catch-up.
    @discardableResult
    func connect() async -> CatchUpReport? {
        await client.resume(SessionCredentials(token: account.token, userID: account.userID))
        await recorder.next(.connected)
        return await nextReport()
    }

    func nextReport() async -> CatchUpReport? {
        for await report in reports { return report }
        return nil
    }

    /// Drops the socket and waits for DISCONNECTED: what the test does next happens while the client is away.
    func dropped() async throws -> SessionSnapshot {
        _ = await server.dropAllSockets()
        return try #require(await recorder.next(.disconnected))
    }

    /// Lets the retry timer fire and waits for CONNECTED and its catch-up's report.
    func reconnect(after disconnected: SessionSnapshot) async throws -> CatchUpReport? {
        clock.advance(to: TestClock.Instant(offset: try #require(disconnected.nextRetry)))
        await recorder.next(.connected)
        return await nextReport()
    }

    func post(_ content: String, in channel: String) async throws -> StoatMessage {
        try await server.postMessage(as: friend.userID, in: channel, content: content)
    }

    /// Waits until the message stream holds `count` events satisfying `condition`; returns them (fewer when the
    /// test's time limit cancels the wait).
    @discardableResult
    func streamed(_ count: Int, _ condition: @escaping @Sendable (MessageEvent) -> Bool) async -> [MessageEvent] {
        await stream.wait { events in events.count(where: condition) >= count }
        return stream.withLock { $0.filter(condition) }
    }

    /// The messages the stream received, by id, with their origins.
    var received: [(id: String, origin: MessageOrigin)] {
        stream.withLock { events in
            events.compactMap { event in
                if case .received(let message, let origin) = event { return (message.id, origin) }
                return nil
            }
        }
    }

    /// Stops the client (its cache written to its store, if any), then the server unless told to keep it.
    func stop(keepingServer: Bool = false) async {
        runner.cancel()
        await runner.value
        reader.cancel()
        try? await http.shutdown()
        if !keepingServer { await server.stop() }
    }
}

@Suite("Catching up after a reconnect, against the reference server", .hangBound)
struct CatchUpTests {
    @Test(
        "After an outage every chat's last message is right, and each message posted meanwhile reaches the stream once, caught up"
    )
    func everyChatCaughtUp() async throws {
        let world = try await CatchUpWorld()
        world.client.open(world.general)
        #expect(await world.connect()?.isComplete == true)
        let before = try await world.post("before", in: world.random)
        await world.streamed(1) { $0.id == before.id }
        let disconnected = try await world.dropped()
        var missed: [StoatMessage] = []
        for (index, channel) in [world.general, world.general, world.random, world.dm].enumerated() {
            missed.append(try await world.post("missed \(index)", in: channel))
        }
        let report = try #require(try await world.reconnect(after: disconnected))
        #expect(report.isComplete)
        #expect(report.messages == missed.count)
        #expect(report.channels >= 3)
        for channel in [world.general, world.random, world.dm] {
            let newest = missed.filter { $0.channel == channel }.last
            #expect(world.client.chats.first { $0.id == channel }?.lastMessage?.id == newest?.id)
        }
        let received = world.received
        for message in missed {
            #expect(received.filter { $0.id == message.id }.map(\.origin) == [.caughtUp], "\(message.content ?? "")")
        }
        #expect(received.filter { $0.id == before.id }.map(\.origin) == [.live])
        #expect(!world.client.cachedHistory(of: world.general).isStale)
        // Live again: a new message is live, once.
        let live = try await world.post("live", in: world.random)
        await world.streamed(1) { $0.id == live.id }
        #expect(world.received.filter { $0.id == live.id }.map(\.origin) == [.live])
        await world.stop()
    }

    @Test("A report names what each chat's catch-up found: how many messages, and the oldest, where a marker goes")
    func reportPerChat() async throws {
        let world = try await CatchUpWorld()
        world.client.open(world.general)
        await world.connect()
        let disconnected = try await world.dropped()
        var missed: [StoatMessage] = []
        for (index, channel) in [world.general, world.random, world.general].enumerated() {
            missed.append(try await world.post("missed \(index)", in: channel))
        }
        let report = try #require(try await world.reconnect(after: disconnected))
        #expect(report.chats[world.general] == ChatCatchUp(messages: 2, oldestFound: missed[0].id))
        #expect(report.chats[world.random] == ChatCatchUp(messages: 1, oldestFound: missed[1].id))
        // A chat fetched that held nothing new is named too, with nothing found.
        #expect(report.chats[world.dm].map { $0.messages == 0 && $0.oldestFound == nil } ?? true)
        #expect(report.chats.values.reduce(0) { $0 + $1.messages } == report.messages)
        await world.stop()
    }

    @Test(
        "Past the page budget the newest page is fetched and a gap recorded; paging into the gap fills it and delivers what it held"
    )
    func gapThenScrollback() async throws {
        let world = try await CatchUpWorld(
            catchUp: CatchUpPolicy(pagesPerChat: 2, pageSize: 5, verifiedMessages: 0, firstScreen: 0))
        await world.connect()
        let first = try await world.post("seen", in: world.random)
        await world.streamed(1) { $0.id == first.id }
        let disconnected = try await world.dropped()
        var missed: [StoatMessage] = []
        for index in 1...20 { missed.append(try await world.post("\(index)", in: world.random)) }
        let report = try #require(try await world.reconnect(after: disconnected))
        #expect(report.gaps == 1)
        let history = world.client.cachedHistory(of: world.random)
        let gap = try #require(history.gaps.first)
        #expect(gap == HistoryGap(after: missed[9].id, before: missed[15].id))
        #expect(history.messages.last?.id == missed[19].id)
        let caughtUp = Set(world.received.filter { $0.origin == .caughtUp }.map(\.id))
        #expect(caughtUp == Set((missed[0...9] + missed[15...19]).map(\.id)))
        // Scrollback into the gap: the five it held, now delivered; the gap is gone.
        let page = try await world.client.history(of: world.random, before: gap.before)
        #expect(page.messages.suffix(15).map(\.id) == missed[0...14].map(\.id))
        #expect(page.gaps.isEmpty)
        #expect(world.client.cachedHistory(of: world.random).gaps.isEmpty)
        await world.streamed(20) { if case .received(_, .caughtUp) = $0 { true } else { false } }
        let all = world.received.filter { $0.origin == .caughtUp }.map(\.id)
        #expect(all.count == 20)
        #expect(Set(all) == Set(missed.map(\.id)))
        await world.stop()
    }

    @Test(
        "Edits and deletions made while away are found: the open channel's history and the first screen's last messages are re-verified"
    )
    func reVerification() async throws {
        let world = try await CatchUpWorld()
        world.client.open(world.general)
        await world.connect()
        let a = try await world.post("a", in: world.general)
        let b = try await world.post("b", in: world.general)
        let c = try await world.post("c", in: world.general)
        let x = try await world.post("x", in: world.random)
        let y = try await world.post("y", in: world.random)
        await world.streamed(5) { if case .received = $0 { true } else { false } }
        let disconnected = try await world.dropped()
        try await world.server.editMessage(id: b.id, content: "b, edited")
        try await world.server.deleteMessage(id: c.id)
        try await world.server.deleteMessage(id: y.id)
        try await world.server.react(as: world.friend.userID, to: a.id, with: "👍")
        let report = try #require(try await world.reconnect(after: disconnected))
        #expect(report.verifiedChanges == 3)
        #expect(world.client.cachedHistory(of: world.general).messages.map(\.content) == ["a", "b, edited"])
        #expect(world.client.cachedHistory(of: world.general).messages.first?.reactions?["👍"] == [world.friend.userID])
        #expect(world.client.cachedHistory(of: world.random).messages.map(\.id) == [x.id])
        #expect(world.client.chats.first { $0.id == world.random }?.lastMessage?.id == x.id)
        let events = world.stream.withLock { $0 }
        #expect(events.contains(.deleted(id: c.id, channel: world.general, origin: .caughtUp)))
        #expect(events.contains(.deleted(id: y.id, channel: world.random, origin: .caughtUp)))
        let edits = events.compactMap { event -> MessageChange? in
            if case .updated(let change) = event, change.origin == .caughtUp { return change }
            return nil
        }
        #expect(edits.map(\.id) == [b.id])
        #expect(edits.first?.content == "b, edited")
        await world.stop()
    }

    @Test(
        "Read states: unread until acknowledged — by this client, by another device live, or while away (GET /sync/unreads)"
    )
    func readStates() async throws {
        let world = try await CatchUpWorld()
        await world.connect()
        func chat(_ id: String) -> Chat? { world.client.chats.first { $0.id == id } }
        let hello = try await world.post("hello", in: world.dm)
        await world.streamed(1) { $0.id == hello.id }
        #expect(chat(world.dm)?.isUnread == true)
        #expect(chat(world.dm)?.mentionCount == 1)
        // This client acknowledges: the chat is read at once; the server's read state moves 1.5 s later.
        let asked = world.clock.now
        try world.client.ack(channel: world.dm, message: hello.id)
        #expect(chat(world.dm)?.isUnread == false)
        await world.clock.waitForSleep(until: asked.advanced(by: .milliseconds(1500)))
        world.clock.advance(to: asked.advanced(by: .milliseconds(1500)))
        await waitUntil {
            await world.server.unreads(userID: world.account.userID).first { $0.channel == world.dm }?.lastID
                == hello.id
        }
        // Another device acknowledges random: ChannelAck reaches this client.
        let news = try await world.post("news", in: world.random)
        await world.streamed(1) { $0.id == news.id }
        #expect(chat(world.random)?.isUnread == true)
        try await world.server.acknowledge(as: world.account.userID, channelID: world.random, messageID: news.id)
        _ = await world.client.chatUpdates.first { chats in chats.first { $0.id == world.random }?.isUnread == false }
        // While away, the other device reads general: after the reconnect, /sync/unreads says so.
        let greeting = try await world.post("greeting", in: world.general)
        await world.streamed(1) { $0.id == greeting.id }
        #expect(chat(world.general)?.isUnread == true)
        let disconnected = try await world.dropped()
        try await world.server.acknowledge(as: world.account.userID, channelID: world.general, messageID: greeting.id)
        _ = try await world.reconnect(after: disconnected)
        _ = await world.client.chatUpdates.first { chats in chats.first { $0.id == world.general }?.isUnread == false }
        #expect(chat(world.dm)?.mentionCount == 0)
        await world.stop()
    }

    @Test(
        "A catch-up interrupted by a drop reports incomplete; the next CONNECTED resumes where it stopped, each message once"
    )
    func interruptedResumes() async throws {
        let world = try await CatchUpWorld(
            catchUp: CatchUpPolicy(pageSize: 5, fetchesInFlight: 1, verifiedMessages: 0, firstScreen: 0))
        await world.connect()
        let seen = try await world.post("seen", in: world.random)
        await world.streamed(1) { $0.id == seen.id }
        let disconnected = try await world.dropped()
        var missed: [StoatMessage] = []
        for index in 1...12 { missed.append(try await world.post("\(index)", in: world.random)) }
        // Random's first page passes, its second fails: the catch-up waits 1 s on the client's clock to try again.
        await world.server.failNextMessageQueries(1, after: 1)
        world.clock.advance(to: TestClock.Instant(offset: try #require(disconnected.nextRetry)))
        await world.recorder.next(.connected)
        await world.streamed(5) { if case .received(_, .caughtUp) = $0 { true } else { false } }
        #expect(world.client.cache.read { $0.catchUpCursors[world.random] } == missed[4].id)
        let again = try await world.dropped()
        let interrupted = try #require(await world.nextReport())
        #expect(!interrupted.isComplete)
        #expect(interrupted.messages == 5)
        let resumed = try #require(try await world.reconnect(after: again))
        #expect(resumed.isComplete)
        #expect(resumed.messages == 7)
        let caughtUp = world.received.filter { $0.origin == .caughtUp }.map(\.id)
        #expect(caughtUp == missed.map(\.id))
        #expect(world.client.cache.read { $0.catchUpCursors[world.random] } == nil)
        await world.stop()
    }

    @Test("A Bulk frame with a bad event: the event is skipped and counted, the rest applied")
    func bulkWithBadEvent() async throws {
        let world = try await CatchUpWorld()
        await world.connect()
        let frame =
            #"{"type":"Bulk","v":[{"type":"Message","_id":"broken"},{"type":"ChannelDelete","id":"\#(world.random)"}]}"#
        await world.server.sendRawFrame(frame)
        _ = await world.client.chatUpdates.first { chats in !chats.contains { $0.id == world.random } }
        #expect(world.client.statistics.skippedBulkEvents == 1)
        #expect(world.client.session.snapshot.state == .connected)
        await world.stop()
    }

    @Test("A Ready asked for fewer fields (ready=users) keeps the chats and histories the store had")
    func filteredReadyKeepsTheStore() async throws {
        let server = try await ReferenceServer.start()
        let stores = TemporaryStore()
        let account = server.defaultAccount
        let full = try await CatchUpWorld(server: server)
        _ = await full.client.signIn(to: stores.store, email: account.email, password: account.password)
        await full.recorder.next(.connected)
        _ = await full.nextReport()
        let kept = try await full.post("kept", in: full.random)
        await full.streamed(1) { $0.id == kept.id }
        let chats = Set(full.client.chats.map(\.id))
        #expect(chats.contains(full.random))
        await full.stop(keepingServer: true)
        // The same account, a client asking Ready for its users only.
        let http = HTTPClient(
            eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: StoatAPI.httpClientConfiguration())
        let filtered = StoatClient(
            apiURL: server.apiURL,
            configuration: .patientREST(StoatClient.Configuration(connection: .init(readyFields: ["users"]))),
            network: ManualNetworkMonitor(.online), clock: TestClock(), random: SeededRandomNumberGenerator(seed: 5),
            httpClient: http)
        let recorder = SnapshotRecorder(filtered.session.states)
        let reports = filtered.catchUps
        let running = Task { await filtered.run() }
        let outcome = await filtered.signIn(to: stores.store, email: account.email, password: account.password)
        #expect(outcome.database != nil)
        await recorder.next(.connected)
        for await _ in reports { break }
        #expect(Set(filtered.chats.map(\.id)).isSuperset(of: chats))
        #expect(filtered.chats.first { $0.id == full.random }?.lastMessage?.content == "kept")
        running.cancel()
        await running.value
        try await http.shutdown()
        await server.stop()
    }
}

/// The events of a client's message stream, appended by one task and awaited by another.
typealias EventList = AwaitableList<MessageEvent>

@Suite("The client's session credentials", .hangBound)
struct ClientCredentialsTests {
    @Test(
        "resume makes the credentials the client's before the session can connect; a login the session refuses leaves the previous ones"
    )
    func credentialsBeforeConnecting() async throws {
        let server = try await ReferenceServer.start()
        let client = StoatClient(
            apiURL: server.apiURL, configuration: .patientREST(), network: ManualNetworkMonitor(.online),
            clock: TestClock())
        let recorder = SnapshotRecorder(client.session.states)
        let running = Task { await client.run() }
        let first = SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID)
        #expect(await client.resume(first))
        #expect(client.currentCredentials == first)
        await recorder.next(.connected)
        // Already logged in: the session refuses a second login, and the client keeps the session it has.
        let second = SessionCredentials(token: "another", userID: "someone")
        #expect(await client.resume(second) == false)
        #expect(client.currentCredentials == first)
        running.cancel()
        await running.value
        await server.stop()
    }
}
