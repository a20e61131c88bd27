import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The REST API: stoatchat's routes a client calls (`crates/delta/src/routes`), the health endpoint, Lifeline's
/// operations list, and the loopback-only admin API; every Stoat route behind ``StoatPipeline``.
struct HTTPRoutes: Sendable {
    let state: ServerState
    let configuration: ReferenceServer.Configuration

    static let sessionHeader = HTTPField.Name("X-Session-Token")!
    static let botHeader = HTTPField.Name("X-Bot-Token")!
    static let idempotencyHeader = HTTPField.Name("Idempotency-Key")!

    func router() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: StoatPipeline(state: state, policy: configuration.rateLimits))
        addSessionRoutes(to: router)
        addUserRoutes(to: router)
        addChannelRoutes(to: router)
        addMessageRoutes(to: router)
        addServerRoutes(to: router)
        addSyncRoutes(to: router)
        addPushRoutes(to: router)
        addExtensionRoutes(to: router)
        addAdminRoutes(to: router)
        return router
    }

    /// Registers a Stoat route whose failures answer as stoatchat's do: a ``RouteFailure/stoat(_:)`` as a
    /// Stoat error, a ``RouteFailure/framework(status:)`` as Rocket's catcher.
    func route(
        _ router: Router<ServerRequestContext>, _ method: HTTPRequest.Method, _ path: String,
        _ body: @escaping @Sendable (Request, ServerRequestContext) async throws(RouteFailure) -> Response
    ) {
        router.on(RouterPath(path), method: method) { request, context in
            do throws(RouteFailure) {
                return try await body(request, context)
            } catch {
                return Self.failureResponse(error, request: request)
            }
        }
    }

    // MARK: Sessions and onboarding

    private func addSessionRoutes(to router: Router<ServerRequestContext>) {
        let state = state
        let configuration = configuration
        router.get("/") { request, _ in
            let authority = request.head.authority ?? "\(configuration.host):\(configuration.port)"
            return Self.json(
                Self.rootConfiguration(
                    authority: authority, secure: configuration.tlsIdentity != nil,
                    fileServerPort: await state.fileServerPort, uploadLimits: await state.uploadLimits,
                    bodyLimit: configuration.uploadBodyLimit))
        }
        route(router, .post, "/auth/session/login") { request, _ throws(RouteFailure) in
            let body = try await Self.readJSON(request)
            guard let login = LoginRequest(body) else { throw .framework(status: 422) }
            let ceiling = configuration.maximumLoginDelay
            if ceiling > .zero { try? await Task.sleep(for: ceiling * Double.random(in: 0...1)) }
            let outcome: ServerState.LoginOutcome
            switch login.credentials {
            case .email(let email, let password):
                outcome = try await state.login(email: email, password: password, friendlyName: login.friendlyName)
            case .ticket(let ticket, let response):
                outcome = try await state.login(ticket: ticket, response: response, friendlyName: login.friendlyName)
            }
            return Self.json(Self.loginWire(outcome))
        }
        route(router, .post, "/auth/session/logout") { request, _ throws(RouteFailure) in
            try await state.logout(token: request.headers[Self.sessionHeader])
            return Response(status: .noContent)
        }
        route(router, .get, "/auth/session/all") { request, _ throws(RouteFailure) in
            Self.json(try await state.allSessions(token: request.headers[Self.sessionHeader]))
        }
        route(router, .get, "/onboard/hello") { request, _ throws(RouteFailure) in
            let needed = try await state.onboardingNeeded(token: request.headers[Self.sessionHeader])
            return Self.json(.object(["onboarding": .bool(needed)]))
        }
        route(router, .post, "/onboard/complete") { request, _ throws(RouteFailure) in
            let token = request.headers[Self.sessionHeader]
            // The Session guard runs before the body is read.
            _ = try await state.sessionGuard(token)
            let body = try await Self.readJSON(request)
            guard case .object(let object) = body, let username = object["username"]?.stringValue else {
                throw .framework(status: 422)
            }
            return Self.json(try await state.completeOnboarding(token: token, username: username))
        }
    }

    // MARK: Users

    private func addUserRoutes(to router: Router<ServerRequestContext>) {
        let state = state
        route(router, .get, "/users/@me") { request, _ throws(RouteFailure) in
            let user = try await Self.user(request, state)
            return Self.json(await state.fetchSelf(user))
        }
        route(router, .get, "/users/dms") { request, _ throws(RouteFailure) in
            let user = try await Self.user(request, state)
            return Self.json(await state.fetchDirectMessages(user))
        }
        route(router, .get, "/users/:id") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            return Self.json(
                try await Self.stoat { () async throws(APIError) in
                    try await state.fetchUser(context.parameters.get("id") ?? "", as: user)
                })
        }
        route(router, .get, "/users/:id/profile") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            return Self.json(
                try await Self.stoat { () async throws(APIError) in
                    try await state.fetchProfile(context.parameters.get("id") ?? "", as: user)
                })
        }
        route(router, .get, "/users/:id/dm") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            return Self.json(
                try await Self.stoat { () async throws(APIError) in
                    try await state.openDirectMessage(with: context.parameters.get("id") ?? "", as: user)
                })
        }
        route(router, .get, "/users/:id/flags") { _, context throws(RouteFailure) in
            let flags = await state.flags(userID: context.parameters.get("id") ?? "")
            return Self.json(.object(["flags": .uint(UInt64(flags))]))
        }
    }

    // MARK: Channels and messages

    private func addChannelRoutes(to router: Router<ServerRequestContext>) {
        let state = state
        route(router, .get, "/channels/:id") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            return Self.json(
                try await Self.stoat { () async throws(APIError) in
                    try await state.fetchChannel(context.parameters.get("id") ?? "", as: user)
                })
        }
        route(router, .get, "/channels/:id/messages") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            let options = try Self.messageQueryOptions(request.uri.queryParameters)
            return Self.json(
                try await Self.stoat { () async throws(APIError) in
                    try await state.queryMessages(context.parameters.get("id") ?? "", options: options, as: user)
                })
        }
        route(router, .post, "/channels/:id/messages") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            // The Idempotency-Key guard: too long is a 400, a key seen lately a 409, both from the catcher.
            let key = request.headers[Self.idempotencyHeader]
            if let key {
                guard key.utf8.count <= 64 else { throw .framework(status: 400) }
                guard await state.consumeNonce(key) else { throw .framework(status: 409) }
            }
            let body = try await Self.readJSON(request)
            guard let message = MessageSendRequest(body) else { throw .framework(status: 422) }
            let channelID = context.parameters.get("id") ?? ""
            let sent = try await Self.stoat { () async throws(APIError) in
                try await state.sendMessage(message, to: channelID, as: user, idempotencyKey: key)
            }
            if await state.takeLostSendAnswer() {
                // The lost-answer fault: stored and published, but the connection drops before any answer.
                try? await context.channel.close().get()
            }
            return Self.json(sent.wire)
        }
        route(router, .get, "/channels/:id/messages/:message") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            return Self.json(
                try await Self.stoat { () async throws(APIError) in
                    try await state.fetchMessage(
                        context.parameters.get("message") ?? "", in: context.parameters.get("id") ?? "", as: user)
                })
        }
        route(router, .patch, "/channels/:id/messages/:message") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            let body = try await Self.readJSON(request)
            guard case .object(let object) = body else { throw .framework(status: 422) }
            let content: String?
            switch object["content"] {
            case nil, .null: content = nil
            case .string(let value): content = value
            default: throw .framework(status: 422)
            }
            let edited = try await Self.stoat { () async throws(APIError) in
                try await state.editMessage(
                    context.parameters.get("message") ?? "", in: context.parameters.get("id") ?? "",
                    content: content, as: user)
            }
            await Self.loseActionAnswerIfFaulted(state, context)
            return Self.json(edited)
        }
        route(router, .delete, "/channels/:id/messages/:message") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            try await Self.stoat { () async throws(APIError) in
                try await state.deleteMessage(
                    context.parameters.get("message") ?? "", in: context.parameters.get("id") ?? "", as: user)
            }
            await Self.loseActionAnswerIfFaulted(state, context)
            return Response(status: .noContent)
        }
    }

    // MARK: Servers

    private func addServerRoutes(to router: Router<ServerRequestContext>) {
        let state = state
        route(router, .get, "/servers/:id") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            let include = try Self.bool(request.uri.queryParameters["include_channels"])
            return Self.json(
                try await Self.stoat { () async throws(APIError) in
                    try await state.fetchServer(
                        context.parameters.get("id") ?? "", includeChannels: include ?? false, as: user)
                })
        }
        route(router, .get, "/servers/:id/members") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            let exclude = try Self.bool(request.uri.queryParameters["exclude_offline"])
            return Self.json(
                try await Self.stoat { () async throws(APIError) in
                    try await state.fetchMembers(
                        context.parameters.get("id") ?? "", excludeOffline: exclude ?? false, as: user)
                })
        }
        route(router, .get, "/servers/:id/members/:member") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            return Self.json(
                try await Self.stoat { () async throws(APIError) in
                    try await state.fetchMember(
                        context.parameters.get("member") ?? "", in: context.parameters.get("id") ?? "", as: user)
                })
        }
    }

    // MARK: Sync

    private func addSyncRoutes(to router: Router<ServerRequestContext>) {
        let state = state
        route(router, .post, "/sync/settings/fetch") { request, _ throws(RouteFailure) in
            let user = try await Self.user(request, state)
            let body = try await Self.readJSON(request)
            guard case .object(let object) = body, case .array(let list) = object["keys"] else {
                throw .framework(status: 422)
            }
            var keys: [String] = []
            for item in list {
                guard let key = item.stringValue else { throw .framework(status: 422) }
                keys.append(key)
            }
            return Self.json(await state.fetchSettings(keys: keys, as: user))
        }
        route(router, .post, "/sync/settings/set") { request, _ throws(RouteFailure) in
            let user = try await Self.user(request, state)
            let timestamp: Int64?
            if let raw = request.uri.queryParameters["timestamp"] {
                guard let value = Int64(raw) else { throw .framework(status: 422) }
                timestamp = value
            } else {
                timestamp = nil
            }
            let body = try await Self.readJSON(request)
            guard case .object(let object) = body else { throw .framework(status: 422) }
            var values: [(String, String)] = []
            for key in object.keys.sorted() {
                guard let value = object[key]?.stringValue else { throw .framework(status: 422) }
                values.append((key, value))
            }
            await state.setSettings(values, timestamp: timestamp, as: user)
            return Response(status: .noContent)
        }
        route(router, .get, "/sync/unreads") { request, _ throws(RouteFailure) in
            let user = try await Self.user(request, state)
            return Self.json(await state.fetchUnreads(user))
        }
    }

    // MARK: Web Push

    private func addPushRoutes(to router: Router<ServerRequestContext>) {
        let state = state
        route(router, .post, "/push/subscribe") { request, _ throws(RouteFailure) in
            let token = request.headers[Self.sessionHeader]
            // The Session guard runs before the body is read.
            _ = try await state.sessionGuard(token)
            let body = try await Self.readJSON(request)
            guard case .object(let object) = body, let endpoint = object["endpoint"]?.stringValue,
                let p256dh = object["p256dh"]?.stringValue, let auth = object["auth"]?.stringValue
            else { throw .framework(status: 422) }
            try await state.subscribePush(
                token: token, PushSubscription(endpoint: endpoint, p256dh: p256dh, auth: auth))
            return Response(status: .noContent)
        }
        route(router, .post, "/push/unsubscribe") { request, _ throws(RouteFailure) in
            try await state.unsubscribePush(token: request.headers[Self.sessionHeader])
            return Response(status: .noContent)
        }
    }

    // MARK: Not stoatchat

    private func addExtensionRoutes(to router: Router<ServerRequestContext>) {
        let state = state
        let configuration = configuration
        route(router, .get, "/operations") { request, _ throws(RouteFailure) in
            let list = try await state.operations(token: request.headers[Self.sessionHeader])
            return Self.json(
                .array(
                    list.map {
                        .object([
                            "id": .string($0.id), "kind": .string($0.kind),
                            "expires_at": .string(StoatTimestamp.string($0.expiresAt)),
                        ])
                    }))
        }
        router.get("/api/health") { _, _ in
            let health = await state.health()
            let hostile = await state.isHostile
            return Self.json(
                .object([
                    "version": .string(configuration.supportedClientVersions),
                    "poll_rate": hostile ? HostileFault.pollRate : health.pollRate.map { .integer($0) },
                    "alert": health.alert?.wire,
                ]))
        }
    }

    /// `GET /`; `secure` when the server is served over TLS (`wss`, `https`). The file server is named on the
    /// same host as the request's authority, at its own port (`fileServerPort`; off when nil), and
    /// `features.limits` states the upload limits as stoatchat's root does (`crates/delta/src/routes/root.rs`).
    static func rootConfiguration(
        authority: String, secure: Bool = false, fileServerPort: Int? = nil, uploadLimits: UploadLimits = .stoat,
        bodyLimit: Int = 20_000_000
    ) -> Wire {
        let off = Wire.object(["enabled": .bool(false), "url": .string("")])
        let (http, ws) = secure ? ("https", "wss") : ("http", "ws")
        var autumn = off
        if let fileServerPort {
            autumn = .object([
                "enabled": .bool(true),
                "url": .string("\(http)://\(host(of: authority)):\(fileServerPort)"),
            ])
        }
        return .object([
            "revolt": .string("0.8.8"),
            "features": .object([
                "captcha": .object(["enabled": .bool(false), "key": .string("")]),
                "email": .bool(false),
                "invite_only": .bool(false),
                "autumn": autumn,
                "january": off,
                "livekit": .object(["enabled": .bool(false), "nodes": .array([])]),
                "limits": limitsWire(uploadLimits, bodyLimit: bodyLimit),
            ]),
            "ws": .string("\(ws)://\(authority)/events"),
            "app": .string("\(http)://\(authority)"),
            "vapid": .string(""),
            "build": .object([
                "commit_sha": .string("reference"),
                "commit_timestamp": .string(""),
                "semver": .string("0.8.8-lifeline-reference"),
                "origin_url": .string("https://github.com/stoatchat/stoatchat"),
                "timestamp": .string(""),
            ]),
        ])
    }

    /// The host of an authority (`127.0.0.1:8080` → `127.0.0.1`, `[::1]:80` → `[::1]`).
    static func host(of authority: String) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[...close])
        }
        return authority.split(separator: ":", maxSplits: 1).first.map(String.init) ?? authority
    }

    /// `features.limits`: `global`, `new_user` and `default` as `Revolt.toml`'s defaults, with the file server's
    /// upload limits under `file_upload_size_limits`.
    static func limitsWire(_ limits: UploadLimits, bodyLimit: Int) -> Wire {
        func user(_ uploads: [String: Int], isNew: Bool) -> Wire {
            .object([
                "outgoing_friend_requests": .integer(isNew ? 5 : 10),
                "bots": .integer(isNew ? 2 : 5),
                "message_length": .integer(2000),
                "message_attachments": .integer(ServerState.maximumAttachments),
                "servers": .integer(isNew ? 50 : 100),
                "voice_quality": .integer(16000),
                "video": .bool(true),
                "video_resolution": .array([.integer(isNew ? 1080 : 1280), .integer(720)]),
                "video_aspect_ratio": .array([.double(0.3), .double(2.5)]),
                "file_upload_size_limits": .object(
                    uploads.keys.sorted().map { Wire.Field(key: $0, value: .integer(uploads[$0] ?? 0)) }),
            ])
        }
        return .object([
            "global": .object([
                "group_size": .integer(100),
                "message_embeds": .integer(5),
                "message_replies": .integer(5),
                "message_reactions": .integer(ServerState.maximumReactions),
                "server_emoji": .integer(100),
                "server_roles": .integer(200),
                "server_channels": .integer(200),
                "body_limit_size": .integer(bodyLimit),
                "restrict_server_creation": .array([]),
                "new_user_hours": .integer(ServerState.newUserHours),
            ]),
            "new_user": user(limits.newUser, isNew: true),
            "default": user(limits.standard, isNew: false),
        ])
    }

    static func loginWire(_ outcome: ServerState.LoginOutcome) -> Wire {
        switch outcome {
        case .success(let session):
            .object([
                "result": .string("Success"), "_id": .string(session.id), "user_id": .string(session.userID),
                "token": .string(session.token), "name": .string(session.name),
                "last_seen": .string(StoatTimestamp.string(session.lastSeen)),
            ])
        case .mfa(let ticket, let methods):
            .object(["result": .string("MFA"), "ticket": .string(ticket), "allowed_methods": .strings(methods)])
        case .disabled(let userID):
            .object(["result": .string("Disabled"), "user_id": .string(userID)])
        }
    }

    // MARK: Helpers

    /// The `User` guard for a request.
    static func user(_ request: Request, _ state: ServerState) async throws(RouteFailure) -> StoatUser {
        try await state.userGuard(
            sessionToken: request.headers[sessionHeader], botToken: request.headers[botHeader])
    }

    /// Runs a rule, turning its ``APIError`` into a ``RouteFailure``.
    static func stoat<Value>(_ body: () async throws(APIError) -> Value) async throws(RouteFailure) -> Value {
        do {
            return try await body()
        } catch {
            throw .stoat(error)
        }
    }

    static func json(_ wire: Wire, status: Int = 200) -> Response {
        Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: wire.bytes)))
    }

    /// A failed request's answer: the Stoat error, or Rocket's catcher chosen by the request's `Accept`.
    static func failureResponse(_ failure: RouteFailure, request: Request) -> Response {
        switch failure {
        case .stoat(let error):
            return json(error.wire, status: error.kind.status)
        case .framework(let status):
            return catcherResponse(status: status, accept: request.headers[.accept])
        }
    }

    static func catcherResponse(status: Int, accept: String?) -> Response {
        let (contentType, text) = FrameworkCatcher.body(status: status, accept: accept)
        return Response(
            status: .init(code: status), headers: [.contentType: contentType],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The request's JSON body, as Rocket's `Json` guard reads it: unreadable JSON is a 400, more than 1 MiB a
    /// 413 (a body of the wrong shape is the route's 422).
    static func readJSON(_ request: Request) async throws(RouteFailure) -> JSONValue {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: 1 << 20)
        } catch {
            throw .framework(status: 413)
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(buffer.readableBytesView))
        } catch {
            throw .framework(status: 400)
        }
    }

    /// A query boolean as Rocket's form parser reads one; a value it cannot read is a 422.
    static func bool(_ value: Substring?) throws(RouteFailure) -> Bool? {
        guard let value else { return nil }
        switch value.lowercased() {
        case "true", "on", "yes", "1", "": return true
        case "false", "off", "no", "0": return false
        default: throw .framework(status: 422)
        }
    }

    /// `OptionsQueryMessages` from the query; a value of the wrong type is a 422.
    static func messageQueryOptions(
        _ query: FlatDictionary<Substring, Substring>
    ) throws(RouteFailure)
        -> MessageQueryOptions
    {
        var options = MessageQueryOptions()
        if let limit = query["limit"] {
            guard let value = Int(limit) else { throw .framework(status: 422) }
            options.limit = value
        }
        options.before = query["before"].map(String.init)
        options.after = query["after"].map(String.init)
        options.nearby = query["nearby"].map(String.init)
        if let sort = query["sort"] {
            switch sort.lowercased() {
            case "latest": options.sort = "Latest"
            case "oldest": options.sort = "Oldest"
            case "relevance": options.sort = "Relevance"
            default: throw .framework(status: 422)
            }
        }
        options.includeUsers = try bool(query["include_users"])
        return options
    }
}
