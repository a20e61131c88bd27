import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The REST API (Stoat's endpoints the client uses, the health endpoint, the operations list) and the
/// loopback-only admin API.
struct HTTPRoutes: Sendable {
    let state: ServerState
    let configuration: ReferenceServer.Configuration

    static let sessionHeader = HTTPField.Name("X-Session-Token")!

    func router() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        addStoatRoutes(to: router)
        addAdminRoutes(to: router)
        return router
    }

    // MARK: Stoat

    private func addStoatRoutes(to router: Router<ServerRequestContext>) {
        let state = state
        let configuration = configuration
        router.get("/") { request, _ in
            let authority = request.head.authority ?? "\(configuration.host):\(configuration.port)"
            return Self.json(Self.rootConfiguration(authority: authority))
        }
        router.post("/auth/session/login") { request, _ in
            await Self.respond {
                let login = try await Self.decode(LoginRequest.self, from: request)
                let ceiling = configuration.maximumLoginDelay
                if ceiling > .zero {
                    try? await Task.sleep(for: ceiling * Double.random(in: 0...1))
                }
                return Self.json(LoginResponse(try await state.login(login)))
            }
        }
        router.post("/auth/session/logout") { request, _ in
            await Self.respond {
                try await state.logout(token: request.headers[Self.sessionHeader])
                return Response(status: .noContent)
            }
        }
        router.get("/onboard/hello") { request, _ in
            await Self.respond {
                let needed = try await state.onboardingNeeded(token: request.headers[Self.sessionHeader])
                return Self.json(["onboarding": needed])
            }
        }
        router.post("/onboard/complete") { request, _ in
            await Self.respond {
                let token = request.headers[Self.sessionHeader]
                let body = try? await Self.decode([String: JSONValue].self, from: request)
                let user = try await state.completeOnboarding(token: token, username: body?["username"]?.stringValue)
                return Self.json(user)
            }
        }
        router.get("/users/@me") { request, _ in
            await Self.respond {
                Self.json(try await state.me(token: request.headers[Self.sessionHeader]))
            }
        }
        router.get("/users/:id/flags") { _, context in
            await Self.respond {
                let id = context.parameters.get("id") ?? ""
                return Self.json(["flags": try await state.flags(userID: id)])
            }
        }
        router.get("/operations") { request, _ in
            await Self.respond {
                let operations = try await state.operations(token: request.headers[Self.sessionHeader])
                return Self.json(operations.map(OperationEntry.init))
            }
        }
        router.get("/api/health") { _, _ in
            let health = await state.health()
            return Self.json(
                HealthResponse(
                    version: configuration.supportedClientVersions, pollRate: health.pollRate, alert: health.alert))
        }
    }

    static func rootConfiguration(authority: String) -> JSONValue {
        let off: JSONValue = .object(["enabled": .bool(false), "url": .string("")])
        return .object([
            "revolt": .string("0.8.8"),
            "features": .object([
                "captcha": .object(["enabled": .bool(false), "key": .string("")]),
                "email": .bool(false),
                "invite_only": .bool(false),
                "autumn": off,
                "january": off,
                "livekit": .object(["enabled": .bool(false), "nodes": .array([])]),
            ]),
            "ws": .string("ws://\(authority)/events"),
            "app": .string("http://\(authority)"),
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

    // MARK: Helpers

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        // Every value given here encodes: models, strings, numbers.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func errorResponse(_ error: APIError) -> Response {
        json(["type": error.kind.name, "location": error.location], status: .init(code: error.kind.status))
    }

    /// Runs a route's body; an ``APIError`` becomes its JSON error, anything else a `FailedValidation`.
    static func respond(_ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let error as APIError {
            return errorResponse(error)
        } catch {
            return errorResponse(APIError(kind: .failedValidation, location: "request body"))
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from request: Request) async throws -> Value {
        var request = request
        let buffer = try await request.collectBody(upTo: 1 << 20)
        return try JSONDecoder().decode(Value.self, from: Data(buffer.readableBytesView))
    }
}

/// The body of a login answer.
struct LoginResponse: Encodable {
    let outcome: ServerState.LoginOutcome

    init(_ outcome: ServerState.LoginOutcome) { self.outcome = outcome }

    enum CodingKeys: String, CodingKey {
        case result
        case id = "_id"
        case userID = "user_id"
        case token, name
        case lastSeen = "last_seen"
        case ticket
        case allowedMethods = "allowed_methods"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch outcome {
        case .success(let session):
            try container.encode("Success", forKey: .result)
            try container.encode(session.id, forKey: .id)
            try container.encode(session.userID, forKey: .userID)
            try container.encode(session.token, forKey: .token)
            try container.encode(session.name, forKey: .name)
            try container.encode(StoatTimestamp.string(session.lastSeen), forKey: .lastSeen)
        case .mfa(let ticket, let methods):
            try container.encode("MFA", forKey: .result)
            try container.encode(ticket, forKey: .ticket)
            try container.encode(methods, forKey: .allowedMethods)
        case .disabled(let userID):
            try container.encode("Disabled", forKey: .result)
            try container.encode(userID, forKey: .userID)
        }
    }
}

/// One entry of `GET /operations`.
struct OperationEntry: Encodable {
    let id: String
    let kind: String
    let expiresAt: String

    init(_ operation: StoatOperation) {
        id = operation.id
        kind = operation.kind
        expiresAt = StoatTimestamp.string(operation.expiresAt)
    }

    enum CodingKeys: String, CodingKey {
        case id, kind
        case expiresAt = "expires_at"
    }
}

/// The body of `GET /api/health`.
struct HealthResponse: Encodable {
    let version: String
    let pollRate: Int?
    let alert: HealthAlert?

    enum CodingKeys: String, CodingKey {
        case version
        case pollRate = "poll_rate"
        case alert
    }
}
