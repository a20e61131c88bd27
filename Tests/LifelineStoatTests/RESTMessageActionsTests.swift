import Foundation
import LifelineCore
import StoatReferenceServer
import Testing

@testable import LifelineStoat

@Suite("REST: editing, deleting, reacting, a page around a message, push", .hangBound)
struct RESTMessageActionsTests {
    @Test("Edit, react, unreact and delete, each repeated: edit and react apply again, unreact and delete are NotFound")
    func actionsAndRepeats() async throws {
        try await withReferenceServer { server, api in
            let account = server.defaultAccount
            let credentials = SessionCredentials(token: account.token, userID: account.userID, issuer: api.server)
            let channel = server.lobbyChannelID
            let posted = try await server.postMessage(as: account.userID, in: channel, content: "first")

            let edited = try await api.editMessage(posted.id, in: channel, content: "second", credentials)
            #expect(edited.content == "second")
            #expect(edited.edited != nil)
            let again = try await api.editMessage(posted.id, in: channel, content: "second", credentials)
            #expect(again.content == "second")

            try await api.react(to: posted.id, in: channel, emoji: "👍", credentials)
            try await api.react(to: posted.id, in: channel, emoji: "👍", credentials)
            #expect(await server.message(id: posted.id)?.reactions?.first?.users == [account.userID])
            try await api.unreact(to: posted.id, in: channel, emoji: "👍", credentials)
            let unreactAgain = try await apiError { () async throws(StoatAPIError) in
                try await api.unreact(to: posted.id, in: channel, emoji: "👍", credentials)
            }
            #expect(unreactAgain.code == .notFound)
            #expect(unreactAgain.status == 404)
            let notEmoji = try await apiError { () async throws(StoatAPIError) in
                try await api.react(to: posted.id, in: channel, emoji: "not an emoji", credentials)
            }
            #expect(notEmoji.code == .invalidOperation)

            try await api.deleteMessage(posted.id, in: channel, credentials)
            #expect(await server.message(id: posted.id) == nil)
            let deleteAgain = try await apiError { () async throws(StoatAPIError) in
                try await api.deleteMessage(posted.id, in: channel, credentials)
            }
            #expect(deleteAgain.code == .notFound)
        }
    }

    @Test("Another user's message: editing is CannotEditMessage; deleting needs ManageMessages, which the owner has")
    func othersMessages() async throws {
        try await withReferenceServer { server, api in
            let owner = server.defaultAccount
            let friend = try await server.addUser(username: "friend")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            let ownerCredentials = SessionCredentials(token: owner.token, userID: owner.userID, issuer: api.server)
            let friendCredentials = SessionCredentials(token: friend.token, userID: friend.userID, issuer: api.server)
            let channel = server.lobbyChannelID
            let friendsMessage = try await server.postMessage(as: friend.userID, in: channel, content: "mine")
            let ownersMessage = try await server.postMessage(as: owner.userID, in: channel, content: "the owner's")

            let edit = try await apiError { () async throws(StoatAPIError) in
                try await api.editMessage(friendsMessage.id, in: channel, content: "x", ownerCredentials)
            }
            #expect(edit.code == .cannotEditMessage)
            let refused = try await apiError { () async throws(StoatAPIError) in
                try await api.deleteMessage(ownersMessage.id, in: channel, friendCredentials)
            }
            #expect(refused.code == .missingPermission)
            #expect(refused.detail == "ManageMessages")
            try await api.deleteMessage(friendsMessage.id, in: channel, ownerCredentials)
            #expect(await server.message(id: friendsMessage.id) == nil)

            try await api.react(to: ownersMessage.id, in: channel, emoji: "🎉", friendCredentials)
            try await api.unreact(to: ownersMessage.id, in: channel, emoji: "🎉", user: friend.userID, ownerCredentials)
            #expect(await server.message(id: ownersMessage.id)?.reactions == nil)
        }
    }

    @Test("A page around a message comes back oldest first: up to limit/2+1 older, the message and limit/2 newer")
    func around() async throws {
        try await withReferenceServer { server, api in
            let account = server.defaultAccount
            let credentials = SessionCredentials(token: account.token, userID: account.userID, issuer: api.server)
            let channel = server.lobbyChannelID
            var ids: [String] = []
            for index in 0..<20 {
                ids.append(try await server.postMessage(as: account.userID, in: channel, content: "m\(index)").id)
            }
            let page = try await api.messages(around: ids[10], in: channel, limit: 4, credentials)
            #expect(page.messages.map(\.id) == Array(ids[7...12]))
            let start = try await api.messages(around: ids[0], in: channel, limit: 4, credentials)
            #expect(start.messages.map(\.id) == Array(ids[0...2]))
            let withUsers = try await api.messages(
                around: ids[19], in: channel, limit: 2, includeUsers: true, credentials)
            #expect(withUsers.messages.map(\.id) == Array(ids[17...19]))
            #expect(withUsers.users.map(\.id) == [account.userID])
            let invalid = try await apiError { () async throws(StoatAPIError) in
                try await api.messages(around: "short", in: channel, credentials)
            }
            #expect(invalid.code == .failedValidation)
        }
    }

    @Test("Push: subscribe puts the subscription on the session, unsubscribe removes it; a bot is refused")
    func push() async throws {
        try await withReferenceServer { server, api in
            let account = server.defaultAccount
            let credentials = SessionCredentials(token: account.token, userID: account.userID, issuer: api.server)
            let subscription = WebPushSubscription(endpoint: "https://push.example/d", p256dh: "P", auth: "A")
            try await api.subscribePush(subscription, credentials)
            let held = await server.pushSubscriptions()
            #expect(held.map(\.subscription.endpoint) == ["https://push.example/d"])
            #expect(held.first?.subscription.p256dh == "P")
            #expect(held.first?.subscription.auth == "A")
            try await api.unsubscribePush(credentials)
            #expect(await server.pushSubscriptions().isEmpty)
            let stranger = try await apiError { () async throws(StoatAPIError) in
                try await api.subscribePush(subscription, SessionCredentials(token: "nobody", issuer: api.server))
            }
            #expect(stranger.code == .invalidSession)
        }
    }
}
