import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

/// One "who am I": every part of the client takes the signed-in user from the session's user id, else from the user
/// `Ready` marks as the viewer (`relationship: "User"`), never from a position in `Ready`'s `users` — bonfire lists
/// the viewer last, the new events server first.
@Suite("Who the signed-in user is, against the reference server", .hangBound)
struct ViewerTests {
    @Test(
        "On the gateway (the viewer first in Ready, friends after) the user's own timeout is announced, not a friend's"
    )
    func gatewayDeadlines() async throws {
        let harness = try await SharedClockHarness(configure: { configuration in
            configuration.events = .gateway
            configuration.gatewayIdleTimeout = nil
        })
        let lobby = harness.server.lobbyServerID
        let me = harness.account.userID
        // A friend in the same server, timed out for longer: Ready lists them after the viewer.
        let friend = try await harness.server.addUser(username: "friend")
        try await harness.server.join(userID: friend.userID, serverID: lobby)
        try await harness.server.makeFriends(me, friend.userID)
        let until = await harness.server.now().addingTimeInterval(120)
        try await harness.server.timeOutMember(userID: me, serverID: lobby, until: until)
        try await harness.server.timeOutMember(
            userID: friend.userID, serverID: lobby, until: until.addingTimeInterval(3_600))
        var events = harness.client.restrictionEvents.makeAsyncIterator()
        await harness.connect()
        let started = try await nextStart(&events)
        #expect(started.id == StoatRestriction.ID(.timeout, lobby))
        #expect(close(started.until, until), "the user's own timeout, not the friend's")
        #expect(harness.client.currentUser?.id == me)
        await harness.stop()
    }

    @Test(
        "A session token alone: the viewer comes from Ready, the session carries it from then on, and no GET /users/@me is made"
    )
    func tokenAlone() async throws {
        let world = try await CatchUpWorld()
        await world.server.resetRequestCounts()
        await world.client.resume(SessionCredentials(token: world.account.token))
        await world.recorder.next(.connected)
        #expect(world.client.currentUser?.id == world.account.userID)
        await waitUntil { world.client.currentCredentials?.userID == world.account.userID }
        #expect(await world.server.requestCounts()["GET /users/@me"] == nil)
        // The user's own message never makes a chat unread: the viewer is known.
        let entry = try await world.client.send(OutgoingMessage(content: "mine"), to: world.random)
        guard case .sent(let id)? = await world.client.delivery(of: entry.nonce) else {
            Issue.record("not sent")
            return
        }
        await world.streamed(1) { $0.id == id }
        #expect(world.client.chats.first { $0.id == world.random }?.isUnread == false)
        await world.stop()
    }
}
