import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

/// The catch-up against the reference server as late as stoatchat: `last_message_id` is committed about 6 s after
/// a channel's last message, by the server's clock — here the test clock the client shares.
@Suite("Catching up against a lagging last_message_id", .timeLimit(.minutes(2)))
struct LaggingCatchUpTests {
    @Test(
        "A message posted just before Ready, in a chat the first pass trusts Ready for, is found by the second pass 33 s after CONNECTED"
    )
    func secondPassFindsLaggingChat() async throws {
        let harness = try await SharedClockHarness(client: { $0.catchUp = CatchUpPolicy(firstScreen: 0) })
        let server = harness.server
        let quiet = try await server.addTextChannel(serverID: server.lobbyServerID, name: "quiet").id
        let reports = harness.client.catchUps
        var next = reports.makeAsyncIterator()
        await harness.client.resume(SessionCredentials(token: harness.account.token, userID: harness.account.userID))
        await harness.recorder.next(.connected)
        let first = try #require(await next.next())
        #expect(first.pass == 1)
        #expect(!first.isComplete)
        harness.advance(to: 34)
        let settled = try #require(await next.next())
        #expect(settled.pass == 2)
        #expect(settled.isComplete)

        _ = await server.dropAllSockets()
        let disconnected = try #require(await harness.recorder.next(.disconnected))
        let missed = try await server.postMessage(as: server.defaultAccount.userID, in: quiet, content: "while away")
        harness.clock.advance(to: TestClock.Instant(offset: try #require(disconnected.nextRetry)))
        await harness.recorder.next(.connected)
        let reconnected = try #require(await next.next())
        // Ready's last_message_id does not show the message yet: the first pass knows the chat whole.
        #expect(reconnected.pass == 1)
        #expect(reconnected.messages == 0)
        #expect(harness.client.cachedHistory(of: quiet).messages.map(\.id).contains(missed.id) == false)
        let connectedAt = harness.clock.now.offset
        harness.clock.advance(to: TestClock.Instant(offset: connectedAt + .seconds(33)))
        let secondPass = try #require(await next.next())
        #expect(secondPass.pass == 2)
        #expect(secondPass.isComplete)
        #expect(secondPass.messages == 1)
        #expect(harness.client.chats.first { $0.id == quiet }?.lastMessage?.id == missed.id)
        await harness.stop()
    }
}

@Suite("Events that overtake their message")
struct EarlyMessageEventsTests {
    @Test("A deletion remembered before its message keeps the message out; an edit is applied to it when it comes")
    func overtaken() {
        var early = EarlyMessageEvents()
        early.deleted("A")
        early.changed(.update(id: "B", data: PartialMessage(content: "edited"), clear: []))
        #expect(early.take("A")?.deleted == true)
        #expect(early.take("A") == nil)
        let entry = early.take("B")
        #expect(entry?.deleted == false)
        #expect(entry?.updates.count == 1)
    }

    @Test("What is remembered is bounded: the oldest is forgotten first")
    func bounded() {
        var early = EarlyMessageEvents()
        for index in 0...EarlyMessageEvents.limit { early.deleted("M\(index)") }
        #expect(early.count == EarlyMessageEvents.limit)
        #expect(early.take("M0") == nil)
        #expect(early.take("M\(EarlyMessageEvents.limit)")?.deleted == true)
    }
}

@Suite("The gateway's second Ready and reordered events, against the reference server", .timeLimit(.minutes(2)))
struct GatewayRestartTests {
    @Test(
        "A second Ready on the open socket reconnects (sessionRestarted), and the catch-up finds what the restart lost")
    func secondReadyReconnects() async throws {
        let harness = try await SharedClockHarness(configure: { $0.events = .gateway })
        let server = harness.server
        let stream = EventList()
        let messages = harness.client.messages
        let reader = Task {
            do {
                for try await event in messages { stream.withLock { $0.append(event) } }
            } catch {}
        }
        await harness.connect()
        #expect(await server.crashGatewaySessions(userID: harness.account.userID) == 1)
        let lost = try await server.postMessage(
            as: server.defaultAccount.userID, in: server.lobbyChannelID, content: "lost in the restart")
        #expect(await server.restoreGatewaySessions(userID: harness.account.userID) == 1)
        let disconnected = try #require(await harness.recorder.next(.disconnected))
        let cause = disconnected.lastError?.cause as? TemporaryFailureCause
        #expect(cause?.code == .sessionRestarted)
        harness.clock.advance(to: TestClock.Instant(offset: try #require(disconnected.nextRetry)))
        await harness.recorder.next(.connected)
        while !stream.withLock({ $0.contains { $0.id == lost.id } }) { await Task.yield() }
        let origins = stream.withLock { events in
            events.compactMap { event -> MessageOrigin? in
                if case .received(let message, let origin) = event, message.id == lost.id { return origin }
                return nil
            }
        }
        #expect(origins == [.caughtUp])
        reader.cancel()
        await harness.stop()
    }

    @Test("A MessageDelete that overtakes its Message keeps the message from ever reaching the app")
    func deletionOvertakesMessage() async throws {
        let harness = try await SharedClockHarness(configure: { $0.events = .gateway })
        let server = harness.server
        let stream = EventList()
        let messages = harness.client.messages
        let reader = Task {
            do {
                for try await event in messages { stream.withLock { $0.append(event) } }
            } catch {}
        }
        await harness.connect()
        await server.reorderMessages(1)
        let owner = server.defaultAccount.userID
        let gone = try await server.postMessage(as: owner, in: server.lobbyChannelID, content: "gone")
        try await server.deleteMessage(id: gone.id)
        let marker = try await server.postMessage(as: owner, in: server.lobbyChannelID, content: "marker")
        while !stream.withLock({ $0.contains { $0.id == marker.id } }) { await Task.yield() }
        let received = stream.withLock { events in
            events.contains { event in
                if case .received(let message, _) = event { return message.id == gone.id }
                return false
            }
        }
        #expect(!received)
        #expect(!harness.client.cachedHistory(of: server.lobbyChannelID).messages.contains { $0.id == gone.id })
        reader.cancel()
        await harness.stop()
    }
}
