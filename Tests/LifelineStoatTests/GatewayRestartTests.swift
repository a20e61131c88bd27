import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

@Suite("The gateway's second Ready and reordered events, against the reference server", .hangBound)
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
                for try await event in messages { stream.append(event) }
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
        let reports = harness.client.catchUps
        var passes = reports.makeAsyncIterator()
        let reconnectAt = try #require(disconnected.nextRetry)
        harness.clock.advance(to: TestClock.Instant(offset: reconnectAt))
        await harness.recorder.next(.connected)
        // The lobby was empty, and Ready's last_message_id does not show the lost message yet (stoatchat commits
        // it about 6 s later, by the clock the server shares): the first pass has nothing to fetch, the second,
        // 33 s after CONNECTED, finds it.
        let first = try #require(await passes.next())
        #expect(first.pass == 1 && first.messages == 0)
        harness.clock.advance(to: TestClock.Instant(offset: reconnectAt + .seconds(33)))
        let second = try #require(await passes.next())
        #expect(second.pass == 2 && second.messages == 1 && second.isComplete)
        await stream.wait { $0.contains { $0.id == lost.id } }
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

    @Test(
        "A gateway that restarts the session again within the stability window meets growing retry delays; one restart after a stable connection costs one unit"
    )
    func restartsBackOff() async throws {
        let harness = try await SharedClockHarness(configure: { $0.events = .gateway })
        let server = harness.server
        let user = harness.account.userID
        await harness.connect()
        // A restart after a stable connection: the first failure, about one retry unit (1 s ± 20 %).
        harness.advance(to: 60)
        await server.crashGatewaySessions(userID: user)
        await server.restoreGatewaySessions(userID: user)
        let first = try #require(await harness.recorder.next(.disconnected))
        #expect(first.failures == 1)
        let firstDelay = try #require(first.nextRetry) - first.time
        #expect(firstDelay >= .milliseconds(800) && firstDelay <= .milliseconds(1_200))
        harness.clock.advance(to: TestClock.Instant(offset: try #require(first.nextRetry)))
        await harness.recorder.next(.connected)
        // Again before the connection proved stable: the count goes on, and the delay grows (3 s ± 20 %).
        #expect(await server.crashGatewaySessions(userID: user) == 1)
        await server.restoreGatewaySessions(userID: user)
        let second = try #require(await harness.recorder.next(.disconnected))
        #expect((second.lastError?.cause as? TemporaryFailureCause)?.code == .sessionRestarted)
        #expect(second.failures == 2)
        let secondDelay = try #require(second.nextRetry) - second.time
        #expect(secondDelay >= .milliseconds(2_400) && secondDelay <= .milliseconds(3_600))
        // A session process in a crash loop: each reconnect meets another restart within the window. The delays
        // follow the retry formula (7 s, 15 s, 31 s ± 20 %), so a gateway that restarts often is never met by a
        // reconnect every retry unit.
        var previous = second
        for (failures, nominal) in [(3, 7), (4, 15), (5, 31)] {
            let retry = try #require(previous.nextRetry)
            harness.clock.advance(to: TestClock.Instant(offset: retry))
            await harness.recorder.next(.connected)
            #expect(await server.crashGatewaySessions(userID: user) == 1)
            await server.restoreGatewaySessions(userID: user)
            let next = try #require(await harness.recorder.next(.disconnected))
            #expect((next.lastError?.cause as? TemporaryFailureCause)?.code == .sessionRestarted)
            #expect(next.failures == failures)
            let delay = try #require(next.nextRetry) - next.time
            #expect(delay >= .milliseconds(nominal * 800) && delay <= .milliseconds(nominal * 1_200))
            previous = next
        }
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
                for try await event in messages { stream.append(event) }
            } catch {}
        }
        await harness.connect()
        await server.reorderMessages(1)
        let owner = server.defaultAccount.userID
        let gone = try await server.postMessage(as: owner, in: server.lobbyChannelID, content: "gone")
        try await server.deleteMessage(id: gone.id)
        let marker = try await server.postMessage(as: owner, in: server.lobbyChannelID, content: "marker")
        await stream.wait { $0.contains { $0.id == marker.id } }
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
