import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension HTTPRoutes {
    /// The admin API under `/admin`: each fault, seed and world action of ``ReferenceServer`` as a JSON `POST`,
    /// and `GET` for observation. Only for loopback peers naming a loopback `Host`, from no foreign `Origin`,
    /// with `Content-Type: application/json` on every `POST` (see ``AdminAccess``).
    func addAdminRoutes(to router: Router<ServerRequestContext>) {
        addAdminObservation(to: router)
        addAdminFaults(to: router)
        addAdminWorld(to: router)
        addAdminMessages(to: router)
        addAdminLoad(to: router)
    }

    private func addAdminObservation(to router: Router<ServerRequestContext>) {
        let state = state
        admin(router, .get, "state") { _, _ in
            let counters = await state.counters()
            let connections = await state.connectionRecords().map { record -> Wire in
                .object([
                    "id": .integer(record.id),
                    "accepted_at": .string(StoatTimestamp.string(record.acceptedAt)),
                    "user_id": record.userID.map { .string($0) } ?? .null,
                    "bot": .bool(record.isBot),
                    "open": .bool(record.isOpen),
                    "frames_received": .integer(record.framesReceived),
                    "subscriptions": .strings(record.subscriptions),
                    "active_subscriptions": .strings(record.activeSubscriptions),
                    "lapsed_subscriptions": .strings(record.lapsedSubscriptions),
                ])
            }
            return Self.json(
                .object([
                    "upgrades_accepted": .integer(counters.upgradesAccepted),
                    "upgrades_refused": .integer(counters.upgradesRefused),
                    "live_sockets": .integer(counters.liveSockets),
                    "outage_session_checks": .integer(counters.outageSessionChecks),
                    "outage_socket_refusals": .integer(counters.outageSocketRefusals),
                    "rate_limited": .integer(counters.rateLimited),
                    "lost_send_answers": .integer(counters.lostSendAnswers),
                    "uploads_stored": .integer(counters.uploadsStored),
                    "lost_upload_answers": .integer(counters.lostUploadAnswers),
                    "arrivals": Self.arrivalsWire(await state.arrivals()),
                    "connections": .array(connections),
                ]))
        }
        admin(router, .get, "arrivals") { _, _ in Self.json(Self.arrivalsWire(await state.arrivals())) }
        admin(router, .post, "arrivals/mark") { _, _ in
            await state.markArrivals()
            return Response(status: .noContent)
        }
    }

    static func arrivalsWire(_ histogram: ArrivalHistogram) -> Wire {
        .object([
            "bin_ms": .integer(histogram.binMilliseconds),
            "since_mark_ms": .integer(histogram.millisecondsSinceMark),
            "total": .integer(histogram.total),
            "late": .integer(histogram.late),
            "bins": .array(histogram.bins.map { .integer($0) }),
        ])
    }

    private func addAdminFaults(to router: Router<ServerRequestContext>) {
        let state = state
        admin(router, .post, "drop-sockets") { _, _ in
            Self.json(.object(["dropped": .integer(await state.dropAllSockets())]))
        }
        admin(router, .post, "fail-message-queries") { body, _ in
            await state.failMessageQueries(
                try body.int("count", in: AdminLimits.count),
                after: try body.optionalInt("after", in: AdminLimits.count) ?? 0)
            return Response(status: .noContent)
        }
        admin(router, .post, "refuse-upgrades") { body, _ in
            await state.refuseUpgrades(try body.int("count", in: AdminLimits.count))
            return Response(status: .noContent)
        }
        admin(router, .post, "silent") { body, _ in
            await state.setSilent(try body.bool("enabled"))
            return Response(status: .noContent)
        }
        admin(router, .post, "deaf") { body, _ in
            await state.setDeaf(try body.bool("enabled"))
            return Response(status: .noContent)
        }
        admin(router, .post, "deafen-sockets") { body, _ in
            var userIDs: Set<String>?
            if let list = body["user_ids"], list != .null {
                guard case .array(let items) = list else { throw AdminFailure.invalid("user_ids") }
                userIDs = Set(items.compactMap(\.stringValue))
            }
            return Self.json(.object(["deafened": .integer(await state.deafenListeningSockets(userIDs: userIDs))]))
        }
        admin(router, .post, "lose-send-answers") { body, _ in
            await state.loseSendAnswers(try body.int("count", in: AdminLimits.count))
            return Response(status: .noContent)
        }
        admin(router, .post, "lose-action-answers") { body, _ in
            await state.loseActionAnswers(try body.int("count", in: AdminLimits.count))
            return Response(status: .noContent)
        }
        admin(router, .post, "fail-ack-writes") { body, _ in
            await state.failAckWrites(try body.int("count", in: AdminLimits.count))
            return Response(status: .noContent)
        }
        admin(router, .post, "lose-upload-answers") { body, _ in
            await state.loseUploadAnswers(try body.int("count", in: AdminLimits.count))
            return Response(status: .noContent)
        }
        admin(router, .post, "slow-uploads") { body, _ in
            await state.setUploadRate(try body.optionalInt("bytes_per_second", in: AdminLimits.bytesPerSecond))
            return Response(status: .noContent)
        }
        admin(router, .post, "upload-limit") { body, _ in
            let tag = try body.string("tag")
            guard ServerState.fileTags.contains(tag) else { throw AdminFailure.invalid("tag") }
            await state.setUploadLimit(tag: tag, bytes: try body.int("bytes", in: AdminLimits.uploadBytes))
            return Response(status: .noContent)
        }
        admin(router, .get, "push-subscriptions") { _, _ in
            Self.json(
                .array(
                    await state.pushSubscriptions().map {
                        .object([
                            "session_id": .string($0.sessionID), "user_id": .string($0.userID),
                            "endpoint": .string($0.subscription.endpoint),
                            "p256dh": .string($0.subscription.p256dh), "auth": .string($0.subscription.auth),
                        ])
                    }))
        }
        admin(router, .post, "ignore-pings") { body, _ in
            await state.setIgnorePings(try body.bool("enabled"))
            return Response(status: .noContent)
        }
        admin(router, .post, "drop-after-ready") { body, _ in
            await state.setDropAfterReady(try body.bool("enabled"))
            return Response(status: .noContent)
        }
        admin(router, .post, "close-frames") { body, _ in
            await state.setCloseFramesOnServerEnds(try body.bool("enabled"))
            return Response(status: .noContent)
        }
        admin(router, .post, "ready-delay") { body, _ in
            let milliseconds = try body.optionalInt("milliseconds", in: AdminLimits.delayMilliseconds) ?? 0
            await state.setReadyDelay(milliseconds > 0 ? .milliseconds(milliseconds) : nil)
            return Response(status: .noContent)
        }
        admin(router, .post, "ready-size") { body, _ in
            let bytes = try body.optionalInt("bytes", in: 0...AdminLimits.largestReady) ?? 0
            await state.setReadyMinimumBytes(bytes > 0 ? bytes : nil)
            return Response(status: .noContent)
        }
        admin(router, .post, "next-logins") { body, _ in
            let name = try body.string("answer")
            let answer: LoginAnswer
            switch name {
            case "MFA": answer = .mfa
            case "Disabled": answer = .disabled
            default:
                guard let kind = StoatErrorKind.known[name] else { throw AdminFailure.invalid("answer") }
                answer = .error(kind)
            }
            await state.forceLogins(answer, count: try body.optionalInt("count", in: AdminLimits.count) ?? 1)
            return Response(status: .noContent)
        }
        admin(router, .post, "revoke-session") { body, _ in
            try Self.found(await state.revoke(token: try body.string("token")))
        }
        admin(router, .post, "user-flags") { body, _ in
            let flags = UInt32(try body.int("flags", in: 0...Int(UInt32.max)))
            return try Self.found(await state.setFlags(flags, userID: try body.string("user_id")))
        }
        admin(router, .post, "disable-account") { body, _ in
            try Self.found(await state.disableAccount(userID: try body.string("user_id")))
        }
        admin(router, .post, "suspend-account") { body, _ in
            try Self.found(await state.suspendAccount(userID: try body.string("user_id")))
        }
        admin(router, .post, "session-outage") { body, _ in
            if body["enabled"]?.boolValue == false {
                await state.restoreSessionLookups()
            } else {
                await state.failSessionLookups(
                    for: try body.optionalNumber("seconds", in: AdminLimits.windowSeconds).map {
                        .milliseconds(Int64($0 * 1000))
                    })
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "health") { body, _ in
            var alert: HealthAlert?
            if let value = body["alert"], value != .null {
                do {
                    alert = try JSONDecoder().decode(HealthAlert.self, from: JSONEncoder().encode(value))
                } catch {
                    throw AdminFailure.invalid("alert")
                }
            }
            await state.setHealth(
                alert: alert, pollRate: try body.optionalInt("poll_rate", in: AdminLimits.pollRateMilliseconds))
            return Response(status: .noContent)
        }
        admin(router, .post, "clock-skew") { body, _ in
            let skew = try body.number("seconds", in: -AdminLimits.longestSeconds...AdminLimits.longestSeconds)
            await state.setClockSkew(.milliseconds(Int64(skew * 1000)))
            _ = await state.expireOperations()
            return Response(status: .noContent)
        }
        admin(router, .post, "raw-frame") { body, _ in
            let count = await state.sendRaw(try body.string("text"), token: body["token"]?.stringValue)
            return Self.json(.object(["sockets": .integer(count)]))
        }
        admin(router, .post, "operations") { body, _ in
            let operation = await state.addOperation(
                kind: try body.string("kind"), userID: try body.string("user_id"),
                expiresIn: .milliseconds(
                    Int64(
                        try body.number(
                            "expires_in_seconds", in: -AdminLimits.longestSeconds...AdminLimits.longestSeconds)
                            * 1000)))
            return Self.json(
                .object([
                    "id": .string(operation.id), "kind": .string(operation.kind), "user_id": .string(operation.userID),
                    "expires_at": .string(StoatTimestamp.string(operation.expiresAt)),
                ]))
        }
        admin(router, .post, "operations/:id/finish") { body, context in
            let result = OperationResult(rawValue: try body.string("result"))
            return try Self.found(await state.finishOperation(id: context.parameters.get("id") ?? "", result: result))
        }
        admin(router, .post, "hostile") { body, _ in
            await state.setHostile(
                try body.bool("enabled"), rejections: try body.optionalInt("rejections", in: AdminLimits.count) ?? 0)
            return Response(status: .noContent)
        }
        admin(router, .post, "last-message-id-lag") { body, _ in
            await state.setLastMessageIDLag(try body.bool("enabled"))
            return Response(status: .noContent)
        }
        admin(router, .post, "restart-session") { body, _ in
            let userID = try body.string("user_id")
            let down = try body.optionalInt("down_milliseconds", in: AdminLimits.delayMilliseconds) ?? 0
            let crashed = await state.crashGatewaySessions(userID: userID)
            // The supervisor's restart takes this long; what is published meanwhile is lost.
            if down > 0 { try? await Task.sleep(for: .milliseconds(down)) }
            let restarted = await state.restoreGatewaySessions(userID: userID)
            return Self.json(.object(["crashed": .integer(crashed), "restarted": .integer(restarted)]))
        }
        admin(router, .post, "reorder-events") { body, _ in
            await state.reorderMessages(try body.int("count", in: AdminLimits.count))
            return Response(status: .noContent)
        }
        admin(router, .post, "reset") { _, _ in
            await state.resetFaults()
            return Response(status: .noContent)
        }
    }

    private func addAdminWorld(to router: Router<ServerRequestContext>) {
        let state = state
        admin(router, .post, "users") { body, _ in
            let username = try body.string("username")
            let email =
                body["email"]?.stringValue ?? "\(username.lowercased())-\(Identifiers.token().prefix(8))@lifeline.test"
            let password = body["password"]?.stringValue ?? Identifiers.token()
            let account = try await Self.world {
                try await state.addUser(
                    email: email, password: password, username: username, verified: true, totpSecret: nil,
                    recoveryCodes: [])
            }
            return Self.json(
                .object([
                    "user_id": .string(account.userID), "token": .string(account.token),
                    "email": .string(account.email),
                    "password": .string(account.password),
                ]))
        }
        admin(router, .post, "bots") { body, _ in
            let bot = try await Self.world {
                try await state.addBot(username: try body.string("username"), ownerID: try body.string("owner_id"))
            }
            return Self.json(.object(["user_id": .string(bot.userID), "bot_token": .string(bot.token)]))
        }
        admin(router, .post, "members") { body, _ in
            let member = try await Self.world {
                try await state.join(userID: try body.string("user_id"), serverID: try body.string("server_id"))
            }
            return Self.json(member.wire)
        }
        admin(router, .post, "members/remove") { body, _ in
            try await Self.world {
                try await state.removeMember(
                    userID: try body.string("user_id"), serverID: try body.string("server_id"),
                    reason: body["reason"]?.stringValue ?? "Leave")
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "timeout") { body, _ in
            var until: Date?
            if let value = body["until"]?.stringValue {
                guard let date = StoatTimestamp.date(value) else { throw AdminFailure.invalid("until") }
                until = date
            }
            try await Self.world {
                try await state.setTimeout(
                    userID: try body.string("user_id"), serverID: try body.string("server_id"), until: until)
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "friends") { body, _ in
            try await Self.world {
                try await state.makeFriends(try body.string("user_id"), try body.string("other_id"))
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "direct-messages") { body, _ in
            let channel = try await Self.world {
                try await state.openDirectMessage(try body.string("user_id"), try body.string("other_id"))
            }
            return Self.json(channel.wire)
        }
        admin(router, .post, "channels") { body, _ in
            let slowmode = try body.optionalInt("slowmode", in: 0...Int.max).map { UInt64($0) }
            let channel = try await Self.world {
                try await state.addTextChannel(
                    serverID: try body.string("server_id"), name: try body.string("name"), slowmode: slowmode)
            }
            return Self.json(channel.wire)
        }
        admin(router, .post, "slowmode") { body, _ in
            let seconds = try body.optionalInt("seconds", in: 0...Int.max).flatMap { $0 > 0 ? UInt64($0) : nil }
            try await Self.world {
                try await state.setSlowmode(channelID: try body.string("channel_id"), seconds: seconds)
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "display-name") { body, _ in
            try await Self.world {
                try await state.setDisplayName(
                    userID: try body.string("user_id"), displayName: body["display_name"]?.stringValue)
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "messages") { body, _ in
            let message = try await Self.world {
                try await state.postMessage(
                    as: try body.string("user_id"), channelID: try body.string("channel_id"),
                    content: try body.string("content"), nonce: body["nonce"]?.stringValue)
            }
            return Self.json(message.wire)
        }
        admin(router, .post, "webhook-messages") { body, _ in
            let message = try await Self.world {
                try await state.postWebhookMessage(
                    channelID: try body.string("channel_id"), name: body["name"]?.stringValue ?? "Webhook",
                    content: try body.string("content"))
            }
            return Self.json(message.wire)
        }
        admin(router, .post, "messages/:id/edit") { body, context in
            let message = try await Self.world {
                try await state.editMessage(id: context.parameters.get("id") ?? "", content: try body.string("content"))
            }
            return Self.json(message.wire)
        }
        admin(router, .post, "messages/:id/delete") { _, context in
            try await Self.world { try await state.deleteMessage(id: context.parameters.get("id") ?? "") }
            return Response(status: .noContent)
        }
    }

    /// Registers an admin route behind ``AdminAccess``; its failures answer `{"type", "location"}` JSON.
    func admin(
        _ router: Router<ServerRequestContext>, _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable ([String: JSONValue], ServerRequestContext) async throws -> Response
    ) {
        router.on(RouterPath("/admin/\(path)"), method: method) { request, context in
            if let refusal = AdminAccess.refusal(
                peer: context.remoteAddress, host: request.head.authority, origin: request.headers[.origin],
                isPost: method == .post, contentType: request.headers[.contentType])
            {
                return Self.json(
                    .object(["type": .string("Forbidden"), "location": .string("admin: \(refusal)")]),
                    status: refusal.status)
            }
            do {
                var body: [String: JSONValue] = [:]
                if method == .post {
                    var request = request
                    let buffer = try await request.collectBody(upTo: 1 << 20)
                    if buffer.readableBytes > 0 {
                        guard
                            case .object(let object) = try? JSONDecoder().decode(
                                JSONValue.self, from: Data(buffer.readableBytesView))
                        else { throw AdminFailure.invalid("body") }
                        body = object
                    }
                }
                return try await handler(body, context)
            } catch let failure as AdminFailure {
                return failure.response
            } catch {
                return AdminFailure.invalid("body").response
            }
        }
    }

    /// Runs a world action, turning its ``ReferenceServerError`` into an admin failure.
    static func world<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as ReferenceServerError {
            throw AdminFailure.world(error)
        }
    }

    static func found(_ found: Bool) throws -> Response {
        guard found else { throw AdminFailure.notFound }
        return Response(status: .noContent)
    }
}

/// Why an admin call failed.
enum AdminFailure: Error {
    case invalid(String)
    case notFound
    case world(ReferenceServerError)

    var response: Response {
        switch self {
        case .invalid(let key):
            HTTPRoutes.json(
                .object(["type": .string("FailedValidation"), "location": .string("admin: missing or mistyped \(key)")]
                ),
                status: 400)
        case .notFound:
            HTTPRoutes.json(.object(["type": .string("NotFound"), "location": .string("admin")]), status: 404)
        case .world(let error):
            HTTPRoutes.json(
                .object([
                    "type": .string(
                        error.stoatError?.name ?? (error.code == .notFound ? "NotFound" : "FailedValidation")),
                    "location": .string("admin: \(error.message)"),
                ]),
                status: error.code == .notFound ? 404 : (error.code == .emailTaken ? 409 : 400))
        }
    }
}

/// The bounds of the admin API's numbers: a number outside them — or not finite, or of the wrong type — is
/// refused with `400 FailedValidation`, never converted (a `1e300` once trapped the server).
enum AdminLimits {
    /// Counts of things to come (`refuse-upgrades`, `fail-message-queries`, `next-logins`): at most a million.
    static let count = 0...1_000_000
    /// A delay in milliseconds (`ready-delay`): at most ten minutes.
    static let delayMilliseconds = 0...600_000
    /// The largest `Ready` `ready-size` pads to: 64 MiB, four times the client's default frame limit.
    static let largestReady = 64 << 20
    /// A fault's window in seconds (`session-outage`): at most a day.
    static let windowSeconds = 0.0...86_400
    /// A `poll_rate` the health endpoint states, in milliseconds: at most a day (the `hostile` fault states
    /// absurd ones on purpose).
    static let pollRateMilliseconds = 0...86_400_000
    /// A clock skew or an operation's expiry, in seconds either way: at most 366 days.
    static let longestSeconds = 366.0 * 86_400
    /// The slow-upload fault's rate (`slow-uploads`): 1 byte to 1 GB per second.
    static let bytesPerSecond = 1...1_000_000_000
    /// An upload limit (`upload-limit`): 0 to 1 GB.
    static let uploadBytes = 0...1_000_000_000
}

extension [String: JSONValue] {
    func string(_ key: String) throws -> String {
        guard let value = self[key]?.stringValue else { throw AdminFailure.invalid(key) }
        return value
    }

    func bool(_ key: String) throws -> Bool {
        guard let value = self[key]?.boolValue else { throw AdminFailure.invalid(key) }
        return value
    }

    /// An integer within `range`; anything else (missing, a fraction, too large) is refused.
    func int(_ key: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = try optionalInt(key, in: range) else { throw AdminFailure.invalid(key) }
        return value
    }

    /// An integer within `range`, or `nil` when the key is absent or null; anything else is refused.
    func optionalInt(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        let value: Int?
        switch self[key] {
        case nil, .null: return nil
        case .integer(let integer): value = Int(exactly: integer)
        case .unsigned(let unsigned): value = Int(exactly: unsigned)
        default: value = nil
        }
        guard let value, range.contains(value) else { throw AdminFailure.invalid(key) }
        return value
    }

    /// Any `Int`; prefer ``int(_:in:)`` with the field's bounds.
    func int(_ key: String) throws -> Int {
        try int(key, in: Int.min...Int.max)
    }

    /// An integer, or `nil` when absent or not an integer; prefer ``optionalInt(_:in:)``, which refuses a
    /// mistyped value.
    func optionalInt(_ key: String) -> Int? {
        switch self[key] {
        case .integer(let value): Int(exactly: value)
        case .unsigned(let value): Int(exactly: value)
        default: nil
        }
    }

    /// Any finite number; prefer ``number(_:in:)`` with the field's bounds.
    func number(_ key: String) throws -> Double {
        try number(key, in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
    }

    /// A finite number within `range`; anything else is refused.
    func number(_ key: String, in range: ClosedRange<Double>) throws -> Double {
        guard let value = try optionalNumber(key, in: range) else { throw AdminFailure.invalid(key) }
        return value
    }

    /// A finite number within `range`, or `nil` when the key is absent or null; anything else is refused.
    func optionalNumber(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        let value: Double
        switch self[key] {
        case nil, .null: return nil
        case .integer(let integer): value = Double(integer)
        case .unsigned(let unsigned): value = Double(unsigned)
        case .number(let number): value = number
        default: throw AdminFailure.invalid(key)
        }
        guard value.isFinite, range.contains(value) else { throw AdminFailure.invalid(key) }
        return value
    }
}
