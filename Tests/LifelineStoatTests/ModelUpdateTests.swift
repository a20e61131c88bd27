import Foundation
import LifelineStoat
import Testing

/// Updates from the events socket applied to cached models: `data` first, then `clear`.
@Suite("Model updates")
struct ModelUpdateTests {
    @Test("a member update sets a timeout, and a later clear lifts it")
    func memberTimeout() throws {
        var member = Member(id: .init(server: "S", user: "U"), nickname: "old", roles: ["R"])
        let until = Date(timeIntervalSince1970: 1_900_000_000)
        member.apply(PartialMember(nickname: "new", timeout: until))
        #expect(member.timeout == until && member.nickname == "new" && member.roles == ["R"])
        member.apply(PartialMember(), clearing: [.timeout, .roles])
        #expect(member.timeout == nil && member.roles == nil && member.nickname == "new")
    }

    @Test("updates decoded from the socket apply to messages, channels, servers and users")
    func decodedUpdates() throws {
        var message = Message(id: "M", channel: "C", author: "U", content: "a", pinned: true)
        var channel = Channel(id: "C", kind: .textChannel, name: "g", description: "d", slowmode: 5)
        var server = Server(id: "S", owner: "U", name: "L", description: "d")
        var user = User(id: "U", username: "u", discriminator: "0001", status: .init(text: "t", presence: "Online"))
        let frames = [
            #"{"type":"MessageUpdate","id":"M","channel":"C","data":{"content":"b"},"clear":["Pinned"]}"#,
            #"{"type":"ChannelUpdate","id":"C","data":{"last_message_id":"M2"},"clear":["Description","Slowmode"]}"#,
            #"{"type":"ServerUpdate","id":"S","data":{"name":"Lounge"},"clear":["Description"]}"#,
            #"{"type":"UserUpdate","id":"U","data":{"display_name":"Ann"},"clear":["StatusText"]}"#,
        ]
        for frame in frames {
            switch BonfireDecoder().decode(frame) {
            case .event(.messageUpdate(_, _, let data, let clear)): message.apply(data, clearing: clear)
            case .event(.channelUpdate(_, let data, let clear)): channel.apply(data, clearing: clear)
            case .event(.serverUpdate(_, let data, let clear)): server.apply(data, clearing: clear)
            case .event(.userUpdate(_, let data, let clear)): user.apply(data, clearing: clear)
            case let other: Issue.record("\(other)")
            }
        }
        #expect(message == Message(id: "M", channel: "C", author: "U", content: "b"))
        #expect(channel == Channel(id: "C", kind: .textChannel, name: "g", lastMessageID: "M2"))
        #expect(server == Server(id: "S", owner: "U", name: "Lounge"))
        #expect(
            user
                == User(
                    id: "U", username: "u", discriminator: "0001", displayName: "Ann", status: .init(presence: "Online")
                ))
    }
}
