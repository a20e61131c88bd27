import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension StoatErrorKind {
    /// The kinds the admin API can name, by wire name.
    static let known: [String: StoatErrorKind] = Dictionary(
        uniqueKeysWithValues: [
            invalidSession, notAuthenticated, invalidCredentials, invalidToken, unverifiedAccount, lockedOut,
            compromisedPassword, blockedByShield, captchaFailed, usernameTaken, alreadyOnboarded, failedValidation,
            internalError, notFound,
        ].map { ($0.name, $0) })
}

extension HTTPRoutes {
    /// The admin API under `/admin`: each fault and seed of ``ReferenceServer`` as a JSON `POST`, callable only
    /// from loopback (anyone else gets 403).
    func addAdminRoutes(to router: Router<ServerRequestContext>) {
        let state = state
        admin(router, .get, "state") { _, _ in
            let counters = await state.counters()
            let connections = await state.connectionRecords().map { record -> JSONValue in
                .object([
                    "id": .integer(Int64(record.id)),
                    "accepted_at": .string(StoatTimestamp.string(record.acceptedAt)),
                    "user_id": record.userID.map { .string($0) } ?? .null,
                    "open": .bool(record.isOpen),
                    "frames_received": .integer(Int64(record.receivedFrames.count)),
                    "subscriptions": .array(record.subscriptions.map { .string($0) }),
                ])
            }
            return Self.json(
                JSONValue.object([
                    "upgrades_accepted": .integer(Int64(counters.upgradesAccepted)),
                    "upgrades_refused": .integer(Int64(counters.upgradesRefused)),
                    "live_sockets": .integer(Int64(counters.liveSockets)),
                    "connections": .array(connections),
                ]))
        }
        admin(router, .post, "drop-sockets") { _, _ in
            Self.json(["dropped": await state.dropAllSockets()])
        }
        admin(router, .post, "refuse-upgrades") { body, _ in
            await state.refuseUpgrades(try body.int("count"))
            return Response(status: .noContent)
        }
        admin(router, .post, "silent") { body, _ in
            await state.setSilent(try body.bool("enabled"))
            return Response(status: .noContent)
        }
        admin(router, .post, "ignore-pings") { body, _ in
            await state.setIgnorePings(try body.bool("enabled"))
            return Response(status: .noContent)
        }
        admin(router, .post, "ready-delay") { body, _ in
            let milliseconds = body.optionalInt("milliseconds") ?? 0
            await state.setReadyDelay(milliseconds > 0 ? .milliseconds(milliseconds) : nil)
            return Response(status: .noContent)
        }
        admin(router, .post, "ready-size") { body, _ in
            let bytes = body.optionalInt("bytes") ?? 0
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
                guard let kind = StoatErrorKind.known[name] else {
                    throw APIError(kind: .failedValidation, location: "admin/next-logins: unknown answer")
                }
                answer = .error(kind)
            }
            await state.forceLogins(answer, count: body.optionalInt("count") ?? 1)
            return Response(status: .noContent)
        }
        admin(router, .post, "revoke-session") { body, _ in
            let revoked = await state.revoke(token: try body.string("token"))
            return revoked ? Response(status: .noContent) : Self.notFound("admin/revoke-session")
        }
        admin(router, .post, "user-flags") { body, _ in
            let flags = UInt32(clamping: try body.int("flags"))
            let found = await state.setFlags(flags, userID: try body.string("user_id"))
            return found ? Response(status: .noContent) : Self.notFound("admin/user-flags")
        }
        admin(router, .post, "disable-account") { body, _ in
            let found = await state.disableAccount(userID: try body.string("user_id"))
            return found ? Response(status: .noContent) : Self.notFound("admin/disable-account")
        }
        admin(router, .post, "health") { body, _ in
            var alert: HealthAlert?
            if let value = body["alert"], value != .null {
                let data = try JSONEncoder().encode(value)
                alert = try JSONDecoder().decode(HealthAlert.self, from: data)
            }
            await state.setHealth(alert: alert, pollRate: body.optionalInt("poll_rate"))
            return Response(status: .noContent)
        }
        admin(router, .post, "clock-skew") { body, _ in
            await state.setClockSkew(.milliseconds(Int64(try body.number("seconds") * 1000)))
            return Response(status: .noContent)
        }
        admin(router, .post, "raw-frame") { body, _ in
            let count = await state.sendRaw(try body.string("text"), token: body["token"]?.stringValue)
            return Self.json(["sockets": count])
        }
        admin(router, .post, "operations") { body, _ in
            let operation = await state.addOperation(
                kind: try body.string("kind"), userID: try body.string("user_id"),
                expiresIn: .milliseconds(Int64(try body.number("expires_in_seconds") * 1000)))
            return Self.json(
                JSONValue.object([
                    "id": .string(operation.id), "kind": .string(operation.kind),
                    "user_id": .string(operation.userID),
                    "expires_at": .string(StoatTimestamp.string(operation.expiresAt)),
                ]))
        }
        admin(router, .post, "operations/:id/finish") { body, context in
            let result = OperationResult(rawValue: try body.string("result"))
            let found = await state.finishOperation(id: context.parameters.get("id") ?? "", result: result)
            return found ? Response(status: .noContent) : Self.notFound("admin/operations/finish")
        }
        admin(router, .post, "reset") { _, _ in
            await state.resetFaults()
            return Response(status: .noContent)
        }
    }

    private func admin(
        _ router: Router<ServerRequestContext>, _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable ([String: JSONValue], ServerRequestContext) async throws -> Response
    ) {
        router.on(RouterPath("/admin/\(path)"), method: method) { request, context in
            guard AdminAccess.isAllowed(context.remoteAddress) else {
                return Self.json(
                    ["type": "Forbidden", "location": "admin: loopback only"], status: .forbidden)
            }
            return await Self.respond {
                var body: [String: JSONValue] = [:]
                if method == .post {
                    var request = request
                    let buffer = try await request.collectBody(upTo: 1 << 20)
                    if buffer.readableBytes > 0 {
                        body = try JSONDecoder().decode([String: JSONValue].self, from: Data(buffer.readableBytesView))
                    }
                }
                return try await handler(body, context)
            }
        }
    }

    static func notFound(_ location: String) -> Response {
        errorResponse(APIError(kind: .notFound, location: location))
    }
}

extension [String: JSONValue] {
    func string(_ key: String) throws(APIError) -> String {
        guard let value = self[key]?.stringValue else { throw Self.missing(key) }
        return value
    }

    func bool(_ key: String) throws(APIError) -> Bool {
        guard case .bool(let value) = self[key] else { throw Self.missing(key) }
        return value
    }

    func int(_ key: String) throws(APIError) -> Int {
        guard let value = optionalInt(key) else { throw Self.missing(key) }
        return value
    }

    func optionalInt(_ key: String) -> Int? {
        switch self[key] {
        case .integer(let value): Int(exactly: value)
        case .unsigned(let value): Int(exactly: value)
        default: nil
        }
    }

    func number(_ key: String) throws(APIError) -> Double {
        switch self[key] {
        case .integer(let value): return Double(value)
        case .unsigned(let value): return Double(value)
        case .number(let value): return value
        default: throw Self.missing(key)
        }
    }

    private static func missing(_ key: String) -> APIError {
        APIError(kind: .failedValidation, location: "admin: missing or mistyped \(key)")
    }
}
