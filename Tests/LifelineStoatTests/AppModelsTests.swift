import AsyncHTTPClient
import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import Observation
import StoatReferenceServer
import Synchronization
import Testing

@testable import LifelineStoat
@testable import LifelineStoatStore

/// Waits until `condition` holds, re-reading it after every change Observation reports of what it reads: a wait
/// for an event, never for a duration.
@MainActor
func until(_ condition: @escaping @MainActor () -> Bool) async {
    while !Task.isCancelled {
        let resumed = Mutex(false)
        let met = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let resume = { @Sendable (value: Bool) in
                    let first = resumed.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume(returning: value) }
                }
                resumedBy.withLock { $0 = resume }
                let holds = withObservationTracking {
                    condition()
                } onChange: {
                    resume(false)
                }
                if holds || Task.isCancelled { resume(holds) }
            }
        } onCancel: {
            resumedBy.withLock { $0?(false) }
        }
        if met { return }
    }
}

/// The pending wait's resumption, for a cancellation (one wait at a time: the tests run on the main actor).
private let resumedBy = Mutex<(@Sendable (Bool) -> Void)?>(nil)

/// Every value a property took, as its observers were told: one entry per Observation change, read after it.
@MainActor
@Observable
final class ChangeLog<Value: Equatable> {
    @ObservationIgnored private let read: @MainActor () -> Value
    private(set) var values: [Value]

    init(_ read: @escaping @MainActor () -> Value) {
        self.read = read
        values = [read()]
        track()
    }

    private func track() {
        withObservationTracking {
            _ = read()
        } onChange: {
            Task { @MainActor in
                self.values.append(self.read())
                self.track()
            }
        }
    }

    /// Changes observers were told of that left the value as it was.
    var repeats: Int { zip(values, values.dropFirst()).count { $0 == $1 } }
}

@Suite("The app's models, driven headless against the reference server", .serialized, .hangBound)
@MainActor
struct AppModelsTests {
    nonisolated static let fixedNow = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "A model-driven app: sign in, the first screen from Ready, a channel, members with names, send, an outage with a countdown, catch-up, a timeout, log out"
    )
    func headlessApp() async throws {
        let server = try await ReferenceServer.start()
        let friend = try await server.addUser(username: "friend")
        try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        let me = server.defaultAccount
        let general = server.lobbyChannelID
        let accounts = FileManager.default.temporaryDirectory.appending(path: "app-models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: accounts) }
        let clock = TestClock()
        // A client of its own, shut down before the server stops: a pooled connection that never carried a
        // request would hold the server's graceful shutdown until the pool's idle timeout.
        let http = HTTPClient(
            eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: StoatAPI.httpClientConfiguration())
        let client = StoatClient(
            apiURL: server.apiURL, configuration: .patientREST(), network: ManualNetworkMonitor(.online), clock: clock,
            random: SeededRandomNumberGenerator(seed: 26), httpClient: http)
        let app = StoatClientModel(client: client, now: { Self.fixedNow })
        let signIn = SignInModel(client: client, store: AccountStore(directory: accounts))
        let running = Task { await client.run() }
        let following = Task { await app.run() }
        let presentations = ChangeLog { app.presentation }
        let states = ChangeLog { app.state }

        // Sign in: a new device lists no account; the sign-in creates one, listed with its server.
        #expect(signIn.accounts.isEmpty)
        await signIn.signIn(email: me.email, password: me.password)
        #expect(signIn.isSignedIn)
        #expect(signIn.outcome?.code == .created)
        #expect(signIn.accounts.map(\.server) == [client.api.server])
        #expect(signIn.secondFactor == nil && signIn.eraseOffer == nil)

        // The first screen of a new account comes with Ready, not with the sign-in.
        await until { app.state == .connected && app.chats.contains { $0.id == general } }
        #expect(app.banner == nil)
        #expect(app.currentUser?.id == me.userID)
        #expect(app.retryDate == nil)

        // Members with names.
        let members = app.members(of: server.lobbyServerID)
        let listing = Task { await members.run() }
        await until { members.rows.contains { $0.id == friend.userID } && !members.isStale }
        #expect(members.rows.first { $0.id == friend.userID }?.name == "friend")

        // A channel: history, a message from the friend, the chat list's unread state and last message.
        let channel = app.channel(general)
        let showing = Task { await channel.run() }
        await until { !channel.isStale }
        let hello = try await server.postMessage(as: friend.userID, in: general, content: "hello")
        await until { channel.messages.contains { $0.id == hello.id } }
        #expect(channel.authorName(of: try #require(channel.messages.last)) == "friend")
        await until { app.chats.first { $0.id == general }?.lastMessage?.id == hello.id }
        #expect(app.chats.first { $0.id == general }?.isUnread == true)
        #expect(app.unreadChats >= 1)

        // The composer: the draft goes through the outbox, pending until the server has it.
        channel.draft = "  hi all  "
        await channel.sendDraft()
        #expect(channel.draft.isEmpty)
        await until { channel.pending.isEmpty && channel.messages.contains { $0.content == "hi all" } }

        // An outage of the events socket: the banner and a countdown as a date; what is sent meanwhile goes out
        // over REST at once (the API still answers), confirmed by its answer.
        #expect(await server.dropAllSockets() >= 1)
        await until { app.state == .disconnected }
        #expect(app.banner == .disconnected)
        let nextRetry = try #require(app.snapshot.nextRetry)
        let countdown = nextRetry - app.snapshot.time
        #expect(countdown > .zero)
        let expected = Self.fixedNow.addingTimeInterval(
            Double(countdown.components.seconds) + Double(countdown.components.attoseconds) / 1e18)
        #expect(app.retryDate == expected)
        let missed = try await server.postMessage(as: friend.userID, in: general, content: "posted while away")
        await channel.send("sent while away")
        await until { channel.pending.isEmpty && channel.messages.contains { $0.content == "sent while away" } }
        #expect(app.state == .disconnected, "posted while DISCONNECTED")
        #expect(channel.lastError == nil)

        // Reconnect now: no clock advanced, the button does it; the channel catches up.
        #expect(await app.reconnectNow())
        await until { app.state == .connected }
        #expect(app.retryDate == nil)
        await until {
            channel.messages.contains { $0.id == missed.id }
                && channel.messages.filter { $0.content == "sent while away" }.count == 1
        }

        // A timeout in the channel's server closes the composer until the server lifts it.
        try await server.timeOutMember(
            userID: me.userID, serverID: server.lobbyServerID, until: Date().addingTimeInterval(3_600))
        await until { channel.timeoutUntil != nil }
        #expect(channel.canSend == false)
        #expect(try #require(channel.timeoutUntil) > Self.fixedNow)
        try await server.timeOutMember(userID: me.userID, serverID: server.lobbyServerID, until: nil)
        await until { channel.timeoutUntil == nil }
        #expect(channel.canSend)

        // Log out: READY.
        #expect(await app.logOut())
        await until { app.state == .ready }

        // Observers were told once per change: never of a value that stayed as it was.
        await until { states.values.last == .ready }
        #expect(presentations.repeats == 0, "\(presentations.values)")
        #expect(states.repeats == 0, "\(states.values)")
        #expect(states.values.contains(.disconnected))

        showing.cancel()
        listing.cancel()
        following.cancel()
        running.cancel()
        await showing.value
        await listing.value
        await following.value
        await running.value
        try? await http.shutdown()
        await server.stop()
    }

    @Test("A snapshot that changes nothing a property shows tells no observer: state, presentation and countdown")
    func noDuplicateChanges() async throws {
        let client = StoatClient(apiURL: URL(string: "http://127.0.0.1:9")!, network: ManualNetworkMonitor(.online))
        let app = StoatClientModel(client: client, now: { Self.fixedNow })
        var snapshot = app.snapshot
        snapshot.state = .disconnected
        snapshot.presentation = Presentation(screen: .client, banner: .disconnected)
        snapshot.nextRetry = .seconds(3)
        snapshot.time = .seconds(1)
        app.apply(snapshot)
        #expect(app.retryDate == Self.fixedNow.addingTimeInterval(2))
        let states = ChangeLog { app.state }
        let presentations = ChangeLog { app.presentation }
        let dates = ChangeLog { app.retryDate }
        // The same state, restated later: only its time moved.
        let fired = Mutex(0)
        withObservationTracking {
            _ = app.state
            _ = app.presentation
            _ = app.retryDate
            _ = app.chats
        } onChange: {
            fired.withLock { $0 += 1 }
        }
        snapshot.time = .seconds(2)
        app.apply(snapshot)
        #expect(fired.withLock { $0 } == 0)
        #expect(app.retryDate == Self.fixedNow.addingTimeInterval(2), "the same timer keeps its date")
        // A new timer: a new date, told once.
        snapshot.nextRetry = .seconds(10)
        app.apply(snapshot)
        await until { dates.values.count == 2 }
        #expect(dates.values.last == Self.fixedNow.addingTimeInterval(8))
        #expect(states.values.count == 1 && presentations.values.count == 1)
    }

    @Test("SignInModel: a second factor asked and answered, a wrong password refused, nothing erased unasked")
    func signInBranches() async throws {
        let server = try await ReferenceServer.start()
        let secret: [UInt8] = Array("12345678901234567890".utf8)
        let account = try await server.addAccount(
            email: "mfa@lifeline.test", password: "mfa-password", username: "mfa", totpSecret: secret)
        let accounts = FileManager.default.temporaryDirectory.appending(path: "sign-in-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: accounts) }
        // A client of its own, shut down before the server stops: a pooled connection that never carried a
        // request would hold the server's graceful shutdown until the pool's idle timeout.
        let http = HTTPClient(
            eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: StoatAPI.httpClientConfiguration())
        let client = StoatClient(
            apiURL: server.apiURL, configuration: .patientREST(), network: ManualNetworkMonitor(.online),
            clock: TestClock(),
            random: SeededRandomNumberGenerator(seed: 7), httpClient: http)
        let running = Task { await client.run() }
        let signIn = SignInModel(client: client, store: AccountStore(directory: accounts))

        await signIn.signIn(email: account.email, password: account.password)
        let step = try #require(signIn.secondFactor)
        #expect(step.methods.contains(.totp))
        #expect(!signIn.isSignedIn && !signIn.isSigningIn)
        await signIn.submit(
            SecondFactorResponse(method: .totp, code: TOTP.code(secret: secret, at: await server.now())))
        #expect(signIn.isSignedIn)
        #expect(signIn.secondFactor == nil)
        let stored = try #require(signIn.accounts.first)
        #expect(signIn.accounts.count == 1)

        // Logged out, the next sign-in with a wrong password is refused; the account stays listed.
        for await snapshot in client.states where snapshot.state == .connected { break }
        #expect(await client.logOut())
        await signIn.signIn(account: stored, password: "not the password")
        #expect([.wrongPassword, .wrongPasswordUnconfirmed].contains(signIn.outcome?.code))
        #expect(!signIn.isSignedIn)
        #expect(signIn.eraseOffer == nil)
        #expect(signIn.accounts.count == 1)

        running.cancel()
        await running.value
        try? await http.shutdown()
        await server.stop()
    }

    @Test("ChannelModel: who is typing, by name, until they stop or post; a slowmode after a send, as a date")
    func typingAndSlowmode() async throws {
        let server = try await ReferenceServer.start()
        let friend = try await server.addUser(username: "friend")
        try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        // A member who does not own the server: the server's owner is exempt from its slowmodes.
        let member = try await server.addUser(username: "member")
        try await server.join(userID: member.userID, serverID: server.lobbyServerID)
        let general = server.lobbyChannelID
        // A client of its own, shut down before the server stops: a pooled connection that never carried a
        // request would hold the server's graceful shutdown until the pool's idle timeout.
        let http = HTTPClient(
            eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: StoatAPI.httpClientConfiguration())
        let client = StoatClient(
            apiURL: server.apiURL, configuration: .patientREST(), network: ManualNetworkMonitor(.online),
            clock: TestClock(),
            random: SeededRandomNumberGenerator(seed: 8), httpClient: http)
        let app = StoatClientModel(client: client, now: { Self.fixedNow })
        let running = Task { await client.run() }
        let following = Task { await app.run() }
        await client.resume(SessionCredentials(token: member.token, userID: member.userID))
        await until { app.state == .connected }
        let channel = app.channel(general)
        let showing = Task { await channel.run() }
        await until { !channel.isStale }

        let start = #"{"type":"ChannelStartTyping","id":"\#(general)","user":"\#(friend.userID)"}"#
        #expect(await server.sendRawFrame(start) >= 1)
        await until { channel.typing == [friend.userID] }
        await until { channel.name(of: friend.userID) == "friend" }  // fetched: Ready did not name them
        _ = try await server.postMessage(as: friend.userID, in: general, content: "done typing")
        await until { channel.typing.isEmpty }
        #expect(await server.sendRawFrame(start) >= 1)
        await until { channel.typing == [friend.userID] }
        let stop = #"{"type":"ChannelStopTyping","id":"\#(general)","user":"\#(friend.userID)"}"#
        #expect(await server.sendRawFrame(stop) >= 1)
        await until { channel.typing.isEmpty }

        try await server.setSlowmode(channelID: general, seconds: 600)
        await channel.send("first")
        await until { channel.slowmodeUntil != nil }
        #expect(channel.canSend == false)
        #expect(try #require(channel.slowmodeUntil) > Self.fixedNow)
        try await server.setSlowmode(channelID: general, seconds: nil)
        await until { channel.slowmodeUntil == nil }

        showing.cancel()
        following.cancel()
        running.cancel()
        await showing.value
        await following.value
        await running.value
        try? await http.shutdown()
        await server.stop()
    }
}
