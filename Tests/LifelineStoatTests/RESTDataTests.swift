import Foundation
import LifelineCore
import LifelineStoat
import Testing

/// The REST an app needs for an account's data, against answers shaped as stoatchat sends them.
@Suite("REST account data")
struct RESTDataTests {
    static let credentials = SessionCredentials(token: "SESSION")

    /// A message as stoatchat serialises it, with every field it may send.
    static let fullMessage = #"""
        {"_id":"01M","nonce":"n1","channel":"01C","author":"01U",
         "user":{"_id":"01U","username":"ann","discriminator":"0001","relationship":"Friend","online":true},
         "member":{"_id":{"server":"01S","user":"01U"},"joined_at":"2025-01-02T03:04:05.678Z","timeout":"2025-06-01T12:00:00.000Z"},
         "webhook":{"name":"hook","avatar":"A1"},"content":"hello","system":{"type":"user_joined","id":"01U"},
         "attachments":[{"_id":"F1","tag":"attachments","filename":"a.png","metadata":{"type":"Image","width":640,"height":480},"content_type":"image/png","size":1234}],
         "edited":"2025-01-02T03:04:06.000Z","embeds":[{"type":"Website","url":"https://x.test","title":"X","site_name":"X site"}],
         "mentions":["01V"],"role_mentions":["01R"],"replies":["01P"],"reactions":{"👍":["01U","01V"]},
         "interactions":{"reactions":["👍"],"restrict_reactions":true},"masquerade":{"name":"Mask","colour":"red"},
         "pinned":true,"flags":1,"unknown_future_field":{"x":1}}
        """#

    static func date(_ iso: String) -> Date {
        try! Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(iso)
    }

    @Test("a message decodes with every field stoatchat sends, dates as dates")
    func messageFields() async throws {
        try await withScriptedServer({ _ in .json(200, "[\(Self.fullMessage)]") }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let page = try await api.messages(in: "01C", Self.credentials)
            let message = try #require(page.messages.first)
            #expect(page.users.isEmpty && page.members.isEmpty)
            #expect(message.id == "01M" && message.nonce == "n1" && message.channel == "01C" && message.author == "01U")
            #expect(message.user?.relationship == "Friend")
            #expect(message.member?.timeout == Self.date("2025-06-01T12:00:00.000Z"))
            #expect(message.member?.joinedAt == Self.date("2025-01-02T03:04:05.678Z"))
            #expect(message.webhook == Message.Webhook(name: "hook", avatar: "A1"))
            #expect(message.content == "hello")
            #expect(message.system == Message.SystemEvent(type: "user_joined", id: "01U"))
            #expect(message.attachments?.first?.metadata == File.Metadata(type: "Image", width: 640, height: 480))
            #expect(message.edited == Self.date("2025-01-02T03:04:06.000Z"))
            #expect(message.embeds?.first?.siteName == "X site")
            #expect(message.mentions == ["01V"] && message.roleMentions == ["01R"] && message.replies == ["01P"])
            #expect(message.reactions == ["👍": ["01U", "01V"]])
            #expect(message.interactions == Message.Interactions(reactions: ["👍"], restrictReactions: true))
            #expect(message.masquerade == Message.Masquerade(name: "Mask", colour: "red"))
            #expect(message.pinned == true && message.flags.rawValue == 1)
        }
    }

    @Test("a minimal message decodes: stoatchat omits empty and default fields")
    func minimalMessage() throws {
        let message = try JSONDecoder().decode(
            Message.self, from: Data(#"{"_id":"M","channel":"C","author":"U"}"#.utf8))
        #expect(message == Message(id: "M", channel: "C", author: "U"))
    }

    @Test("a message round-trips through its encoding, timestamps to the millisecond")
    func messageRoundTrip() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let message = try JSONDecoder().decode(Message.self, from: Data(Self.fullMessage.utf8))
        let encoded = try encoder.encode(message)
        let again = try JSONDecoder().decode(Message.self, from: encoded)
        #expect(try encoder.encode(again) == encoded)
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""edited":"2025-01-02T03:04:06.000Z""#))
        #expect(
            again.member?.joinedAt.map { abs($0.timeIntervalSince(Self.date("2025-01-02T03:04:05.678Z"))) < 0.001 }
                == true)
    }

    @Test("a message query sends its options as stoatchat reads them, and both answer shapes decode")
    func messageQuery() async throws {
        let withUsers = #"""
            {"messages":[{"_id":"M","channel":"C","author":"U"}],
             "users":[{"_id":"U","username":"u","discriminator":"0001"}],
             "members":[{"_id":{"server":"S","user":"U"},"joined_at":"2025-01-01T00:00:00.000Z"}]}
            """#
        try await withScriptedServer({ request in
            request.query.contains("include_users=true") ? .json(200, withUsers) : .json(200, "[]")
        }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let page = try await api.messages(
                in: "C", query: .before("01BEFORE", limit: 20, includeUsers: true), Self.credentials)
            #expect(page.messages.map(\.id) == ["M"])
            #expect(page.users.map(\.id) == ["U"])
            #expect(page.members.map(\.id) == [Member.ID(server: "S", user: "U")])
            let empty = try await api.messages(
                in: "C", query: MessageQuery(limit: 5, after: "A", sort: .oldest, nearby: "N"), Self.credentials)
            #expect(empty.messages.isEmpty)
            let requests = server.requests
            #expect(requests.map(\.path) == ["/channels/C/messages", "/channels/C/messages"])
            #expect(requests[0].query == "limit=20&before=01BEFORE&sort=Latest&include_users=true")
            #expect(requests[1].query == "limit=5&after=A&sort=Oldest&nearby=N")
            #expect(requests.allSatisfy { $0.header("X-Session-Token") == "SESSION" })
        }
    }

    @Test("sending a message posts its body with its Idempotency-Key, the same on a retry of the same value")
    func sendMessage() async throws {
        try await withScriptedServer({ request in
            .json(200, #"{"_id":"M","channel":"C","author":"U","content":"hi","nonce":"n"}"#)
        }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let outgoing = OutgoingMessage(
                content: "hi", nonce: "n", replies: [.init(id: "P", mention: true)])
            let sent = try await api.sendMessage(outgoing, in: "C", Self.credentials)
            _ = try await api.sendMessage(outgoing, in: "C", Self.credentials)
            #expect(sent.content == "hi")
            let requests = server.requests
            #expect(requests.map(\.method) == ["POST", "POST"])
            #expect(requests[0].path == "/channels/C/messages")
            #expect(requests[0].header("Idempotency-Key") == outgoing.idempotencyKey)
            #expect(requests[1].header("Idempotency-Key") == outgoing.idempotencyKey)
            let body = try JSONSerialization.jsonObject(with: Data(requests[0].body.utf8)) as? [String: Any]
            #expect(body?["content"] as? String == "hi")
            #expect(body?["nonce"] as? String == "n")
            #expect((body?["replies"] as? [[String: Any]])?.first?["mention"] as? Bool == true)
            #expect(body?["idempotencyKey"] == nil)
            #expect(OutgoingMessage(content: "x").idempotencyKey != outgoing.idempotencyKey)
        }
    }

    /// Rocket's default catcher answering stoatchat's Idempotency-Key guard, as stoatchat sends it.
    static let rocketConflict = #"""
        {
          "error": {
            "code": 409,
            "reason": "Conflict",
            "description": "The request could not be processed because of a conflict in the request."
          }
        }
        """#

    @Test("a reused key's 409 — Rocket's catcher, JSON or HTML, no error kind — is DuplicateNonce with status 409")
    func duplicate() async throws {
        for body in [Self.rocketConflict, "<!DOCTYPE html><html><h1>409: Conflict</h1></html>"] {
            try await withScriptedServer({ _ in .json(409, body) }) { server in
                let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
                let error = try await apiError { () async throws(StoatAPIError) in
                    try await api.sendMessage(OutgoingMessage(content: "hi"), in: "C", Self.credentials)
                }
                #expect(error.code == .duplicateNonce)
                #expect(error.status == 409)
                #expect(error.kind == nil)
            }
        }
    }

    @Test("channel, server, user and direct messages decode stoatchat's shapes")
    func lookups() async throws {
        let channel = #"""
            {"channel_type":"TextChannel","_id":"C","server":"S","name":"general","last_message_id":"M9",
             "default_permissions":{"a":1,"d":2},"role_permissions":{"R":{"a":4,"d":0}},"nsfw":true,
             "voice":{"max_users":5},"slowmode":10}
            """#
        let server = #"""
            {"_id":"S","owner":"U","name":"Lounge","channels":["C"],"categories":[{"id":"K","title":"Text","channels":["C"]}],
             "system_messages":{"user_joined":"C"},"roles":{"R":{"name":"Mod","permissions":{"a":8,"d":0},"rank":1}},
             "default_permissions":123,"discoverable":true,"approximate_member_count":42}
            """#
        let dms = #"""
            [{"channel_type":"DirectMessage","_id":"D","active":true,"recipients":["U","V"]},
             {"channel_type":"Group","_id":"G","name":"g","owner":"U","recipients":["U"],"permissions":7}]
            """#
        try await withScriptedServer({ request in
            switch request.path {
            case "/channels/C": .json(200, channel)
            case "/servers/S": .json(200, server)
            case "/users/V": .json(200, #"{"_id":"V","username":"v","discriminator":"0002","pronouns":"they"}"#)
            case "/users/dms": .json(200, dms)
            default: .json(404, #"{"type":"NotFound"}"#)
            }
        }) { http in
            let api = StoatAPI(baseURL: http.url, requestTimeout: .failureBound)
            let bot = StoatAuthorization.bot(token: "BOT")
            let fetched = try await api.channel("C", bot)
            #expect(fetched.lastMessageID == "M9")
            #expect(fetched.defaultPermissions == PermissionOverride(allow: 1, deny: 2))
            #expect(fetched.rolePermissions == ["R": PermissionOverride(allow: 4)])
            #expect(fetched.voice == Channel.Voice(maxUsers: 5) && fetched.slowmode == 10)
            let lounge = try await api.server("S", Self.credentials)
            #expect(lounge.categories == [Server.Category(id: "K", title: "Text", channels: ["C"])])
            #expect(lounge.roles?["R"]?.permissions == PermissionOverride(allow: 8))
            #expect(lounge.systemMessages?.userJoined == "C" && lounge.approximateMemberCount == 42)
            #expect(try await api.user("V", Self.credentials).pronouns == "they")
            let channels = try await api.directMessages(Self.credentials)
            #expect(channels.map(\.kind) == [.directMessage, .group])
            #expect(channels[1].permissions == 7)
            let unknown = try await apiError { () async throws(StoatAPIError) in try await api.channel("nope", bot) }
            #expect(unknown.code == .notFound)
            #expect(http.requests[0].header("X-Bot-Token") == "BOT")
            #expect(http.requests[0].header("X-Session-Token") == nil)
            #expect(http.requests[1].header("X-Session-Token") == "SESSION")
        }
    }

    @Test("server members come with their users and their timeouts as dates")
    func members() async throws {
        let body = #"""
            {"members":[{"_id":{"server":"S","user":"U"},"joined_at":"2025-01-01T00:00:00Z","timeout":"2030-01-01T00:00:00.500Z",
                         "nickname":"n","roles":["R"],"can_publish":false}],
             "users":[{"_id":"U","username":"u","discriminator":"0001"}]}
            """#
        try await withScriptedServer({ _ in .json(200, body) }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let list = try await api.members(of: "S", excludeOffline: true, Self.credentials)
            let member = try #require(list.members.first)
            #expect(member.timeout == Self.date("2030-01-01T00:00:00.500Z"))
            #expect(member.joinedAt == Date(timeIntervalSince1970: 1_735_689_600))
            #expect(member.canPublish == false && member.roles == ["R"])
            #expect(list.users.map(\.username) == ["u"])
            #expect(server.requests.first?.target == "/servers/S/members?exclude_offline=true")
        }
    }

    @Test("a member whose timeout is not a date is a malformed response, not a crash")
    func badTimeout() async throws {
        let body = #"{"members":[{"_id":{"server":"S","user":"U"},"timeout":"soon"}],"users":[]}"#
        try await withScriptedServer({ _ in .json(200, body) }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.members(of: "S", Self.credentials)
            }
            #expect(error.code == .malformedResponse)
        }
    }

    @Test("sessions, synced settings and unreads decode stoatchat's shapes")
    func accountState() async throws {
        try await withScriptedServer({ request in
            switch request.path {
            case "/auth/session/all": .json(200, #"[{"_id":"S1","name":"Lifeline"},{"_id":"S2","name":"web"}]"#)
            case "/sync/settings/fetch": .json(200, #"{"theme":[1700000000000,"{\"dark\":true}"]}"#)
            case "/sync/unreads":
                .json(
                    200,
                    #"[{"_id":{"channel":"C","user":"U"},"last_id":"M","mentions":["M2"]},{"_id":{"channel":"D","user":"U"}}]"#
                )
            default: .json(404, "")
            }
        }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            #expect(
                try await api.sessions(Self.credentials) == [
                    SessionInfo(id: "S1", name: "Lifeline"), SessionInfo(id: "S2", name: "web"),
                ])
            let settings = try await api.settings(["theme", "never-set"], Self.credentials)
            #expect(settings == ["theme": SyncedSetting(revision: 1_700_000_000_000, value: #"{"dark":true}"#)])
            let unreads = try await api.unreads(Self.credentials)
            #expect(
                unreads == [
                    ChannelUnread(id: .init(channel: "C", user: "U"), lastID: "M", mentions: ["M2"]),
                    ChannelUnread(id: .init(channel: "D", user: "U")),
                ])
            let fetch = try #require(server.requests.first { $0.path == "/sync/settings/fetch" })
            #expect(fetch.method == "POST")
            #expect(fetch.body == #"{"keys":["theme","never-set"]}"#)
        }
    }
}
