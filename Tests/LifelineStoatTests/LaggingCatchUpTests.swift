import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

/// The catch-up against the reference server as late as stoatchat: `last_message_id` is committed about 6 s after
/// a channel's last message, by the server's clock — here the test clock the client shares.
@Suite("Catching up against a lagging last_message_id", .hangBound)
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
