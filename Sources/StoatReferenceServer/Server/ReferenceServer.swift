import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A Stoat-compatible server (REST and the Bonfire events socket) with fault injection, for tests, demos and
/// offline client development.
///
/// ```swift
/// let server = try await ReferenceServer.start()
/// defer { Task { await server.stop() } }
/// // connect a client to server.apiURL / server.eventsURL with server.defaultAccount.token
/// await server.dropAllSockets()
/// ```
///
/// It speaks the protocol from its own code, following stoatchat's source rule by rule, and imports no Lifeline
/// module, so a client that passes against it has shown interoperability rather than shared code. Every method
/// is safe to call from any task. See the catalog for the endpoints, the behaviour table, the faults and the
/// admin API.
public final class ReferenceServer: Sendable {
    let state: ServerState
    let configuration: Configuration
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, Never>
    private let expiryTask: Task<Void, Never>

    /// The port the server listens on (the one picked when the configuration asked for port 0).
    public let port: Int
    /// The REST API base, e.g. `http://127.0.0.1:PORT` (`https://localhost:PORT` over TLS).
    public let apiURL: URL
    /// The events socket, e.g. `ws://127.0.0.1:PORT/events`, as `GET /` states it. Add
    /// `?version=1&format=json`.
    public let eventsURL: URL
    /// The API base of the second port, whose events socket behaves as the gateway
    /// (``Configuration/gatewayPort``); nil when the server listens once.
    public let gatewayAPIURL: URL?
    /// The admin API base, e.g. `http://127.0.0.1:PORT/admin`; only loopback peers may call it.
    public let adminURL: URL
    /// The health endpoint, `GET <apiURL>/api/health`.
    public let healthURL: URL
    /// The file server (stoatchat's Autumn), on a port of its own, as `GET /` names it under
    /// `features.autumn`: e.g. `http://127.0.0.1:PORT`.
    public let fileServerURL: URL
    /// The ready-to-use account: onboarded, with a live session token.
    public let defaultAccount: SeededAccount
    /// A second account that has not finished onboarding (`GET /onboard/hello` says `true`; its socket is
    /// answered `InvalidSession`).
    public let pendingAccount: SeededAccount
    /// A bot owned by the default user and a member of the lobby: `X-Bot-Token` on REST, its token on the
    /// events socket.
    public let defaultBot: SeededBot
    /// The id of the server ("Lifeline Lobby") the default user is a member of.
    public let lobbyServerID: String
    /// The id of the lobby's `#general` text channel.
    public let lobbyChannelID: String

    private init(
        state: ServerState, configuration: Configuration, serviceGroup: ServiceGroup, runTask: Task<Void, Never>,
        expiryTask: Task<Void, Never>, port: Int, gatewayPort: Int?, fileServerPort: Int, world: SeededWorld
    ) {
        self.state = state
        self.configuration = configuration
        self.serviceGroup = serviceGroup
        self.runTask = runTask
        self.expiryTask = expiryTask
        self.port = port
        var host = configuration.host == "0.0.0.0" || configuration.host == "::" ? "127.0.0.1" : configuration.host
        // Over TLS, loopback is named: a client may not send an IP address as the TLS server name (SNI), and
        // swift-websocket 1.6 sends the URL's host as it is, so `wss://127.0.0.1` fails before it is verified.
        if configuration.tlsIdentity != nil, host == "127.0.0.1" { host = "localhost" }
        func hostAndPort(_ port: Int) -> String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
        let authority = hostAndPort(port)
        // These strings are well-formed URLs by construction.
        let (http, ws) = configuration.tlsIdentity == nil ? ("http", "ws") : ("https", "wss")
        self.apiURL = URL(string: "\(http)://\(authority)")!
        self.gatewayAPIURL = gatewayPort.map { URL(string: "\(http)://\(hostAndPort($0))")! }
        self.eventsURL = URL(string: "\(ws)://\(authority)/events")!
        self.adminURL = URL(string: "\(http)://\(authority)/admin")!
        self.healthURL = URL(string: "\(http)://\(authority)/api/health")!
        self.fileServerURL = URL(string: "\(http)://\(hostAndPort(fileServerPort))")!
        self.defaultAccount = world.defaultAccount
        self.pendingAccount = world.pendingAccount
        self.defaultBot = world.defaultBot
        self.lobbyServerID = world.lobbyServerID
        self.lobbyChannelID = world.lobbyChannelID
    }

    /// Starts a server and returns once it accepts connections.
    ///
    /// - Parameter configuration: Where to listen and how to behave; the default binds 127.0.0.1 on a free port
    ///   and keeps data in memory.
    /// - Returns: The running server. Call ``stop()`` when done.
    /// - Throws: When the data file cannot be opened or the address cannot be bound.
    public static func start(_ configuration: Configuration = Configuration()) async throws -> ReferenceServer {
        let store = try configuration.dataFile.map { try PersistentStore(path: $0) }
        let state = ServerState(configuration: configuration, store: store)
        try await state.loadPersisted()
        let world = try await state.seedDefaults(
            defaultCredentials: configuration.defaultCredentials,
            pendingCredentials: configuration.pendingCredentials)
        let responder = HTTPRoutes(state: state, configuration: configuration).router().buildResponder()
        let (ports, portContinuation) = AsyncThrowingStream.makeStream(of: (EventsServer, Int).self)
        var listeners: [EventsServer: Int] = [configuration.events: configuration.port]
        if let gatewayPort = configuration.gatewayPort, configuration.events != .gateway {
            listeners[.gateway] = gatewayPort
        }
        var services: [any Service] = []
        for (events, port) in listeners {
            var listening = configuration
            listening.events = events
            services.append(
                try listener(
                    listening, port: port, state: state, responder: responder,
                    running: { portContinuation.yield((events, $0)) }))
        }
        let logger = configuration.logger
        // The file server listens on a port of its own: another origin than the API, as stoat.chat's CDN is.
        let (filePorts, filePortContinuation) = AsyncThrowingStream.makeStream(of: Int.self)
        services.append(
            try fileServer(configuration, state: state, running: { filePortContinuation.yield($0) }))
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [], logger: logger)
        // A graceful shutdown waits for every open connection; past two seconds it is escalated to cancellation.
        // Neither closes an HTTP/1 connection that has not carried a request yet (Hummingbird gives it no
        // request state until then): one a client's pool opened and left idle holds `stop()` until the client
        // closes it — Lifeline's clients after 4 s (`StoatAPI.httpClientConfiguration()`).
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(2)
        let serviceGroup = ServiceGroup(configuration: groupConfiguration)
        let runTask = Task {
            do {
                try await serviceGroup.run()
                portContinuation.finish()
                filePortContinuation.finish()
            } catch {
                portContinuation.finish(throwing: error)
                filePortContinuation.finish(throwing: error)
            }
        }
        var bound: [EventsServer: Int] = [:]
        let fileServerPort: Int
        do {
            var iterator = ports.makeAsyncIterator()
            while bound.count < listeners.count {
                guard let (events, port) = try await iterator.next() else { throw CancellationError() }
                bound[events] = port
            }
            var fileIterator = filePorts.makeAsyncIterator()
            guard let fileBound = try await fileIterator.next() else { throw CancellationError() }
            fileServerPort = fileBound
            await state.setFileServerPort(fileBound)
        } catch {
            await serviceGroup.triggerGracefulShutdown()
            await runTask.value
            throw error
        }
        let interval = configuration.expiryCheckInterval
        let expiryTask = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                _ = await state.expireOperations()
            }
        }
        let port = bound[configuration.events] ?? configuration.port
        let gatewayPort = configuration.events == .gateway ? nil : bound[.gateway]
        logger.info("Reference server started", metadata: ["stoat.port": "\(port)"])
        return ReferenceServer(
            state: state, configuration: configuration, serviceGroup: serviceGroup, runTask: runTask,
            expiryTask: expiryTask, port: port, gatewayPort: gatewayPort, fileServerPort: fileServerPort, world: world)
    }

    /// One listener: REST through `responder`, and the events socket as `configuration.events`; `running` is
    /// given the port once it accepts connections.
    private static func listener(
        _ configuration: Configuration, port: Int, state: ServerState, responder: RouterResponder<ServerRequestContext>,
        running: @escaping @Sendable (Int) -> Void
    ) throws -> any Service {
        let events = EventsEndpoint(state: state, configuration: configuration)
        var builder = HTTPServerBuilder.http1WebSocketUpgrade(
            configuration: .init(
                http1: .init(),
                ws: .init(
                    maxFrameSize: configuration.maxInboundFrameSize, autoPing: .disabled,
                    closeTimeout: configuration.closeTimeout)
            )
        ) { request, channel, _ in
            try await events.shouldUpgrade(request: request, channel: channel)
        }
        if let tls = try serverTLS(configuration) { builder = try .tls(builder, tlsConfiguration: tls) }
        let logger = configuration.logger
        return try builder.buildServer(
            configuration: ServerConfiguration(address: .hostname(configuration.host, port: port), backlog: 1024),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger,
            responder: answering(with: responder, state: state, logger: logger) { request in
                HTTPRoutes.catcherResponse(status: 500, accept: request.headers[.accept])
            },
            onServerRunning: { channel in running(channel.localAddress?.port ?? port) }
        )
    }

    /// Answers each request through `responder`: an error a route throws becomes its response, any other error
    /// `failed`'s; the `Date` header states the server's clock, skew included, so clients can compare expiries.
    private static func answering(
        with responder: RouterResponder<ServerRequestContext>, state: ServerState, logger: Logger,
        failed: @escaping @Sendable (Request) -> Response
    ) -> HTTPChannelHandler.Responder {
        { request, responseWriter, channel in
            let context = ServerRequestContext(source: .init(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            } catch {
                response = failed(request)
            }
            response.headers[.date] = HTTPDate.string(await state.now())
            try await responseWriter.write(response: response.head, body: response.body)
        }
    }

    /// The server side of TLS when the configuration has an identity; nil serves plaintext.
    private static func serverTLS(_ configuration: Configuration) throws -> TLSConfiguration? {
        guard let identity = configuration.tlsIdentity else { return nil }
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(identity.certificatePEM.utf8)).map {
                .certificate($0)
            },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem)))
        // A stopping server does not wait 5 s for each client's close_notify.
        tls.shutdownTimeout = .milliseconds(100)
        return tls
    }

    /// The file server's listener, on a free port of its own; `running` is given the port once it accepts
    /// connections.
    private static func fileServer(
        _ configuration: Configuration, state: ServerState, running: @escaping @Sendable (Int) -> Void
    ) throws -> any Service {
        let responder = FileServerRoutes(state: state, configuration: configuration).router().buildResponder()
        var builder = HTTPServerBuilder.http1()
        if let tls = try serverTLS(configuration) { builder = try .tls(builder, tlsConfiguration: tls) }
        let logger = configuration.logger
        return try builder.buildServer(
            configuration: ServerConfiguration(address: .hostname(configuration.host, port: 0), backlog: 256),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger,
            responder: answering(with: responder, state: state, logger: logger) { _ in
                FileServerRoutes.text("Internal Server Error", 500)
            },
            onServerRunning: { channel in running(channel.localAddress?.port ?? 0) }
        )
    }

    /// Stops the server: every socket is closed with 1001 (going away), then the listener shuts down.
    /// Returns when it has.
    public func stop() async {
        expiryTask.cancel()
        await state.closeAllSockets(code: .goingAway)
        await serviceGroup.triggerGracefulShutdown()
        await runTask.value
    }

    /// The server's current time: the configured clock plus the skew fault.
    public func now() async -> Date {
        await state.now()
    }
}

/// The request context of the REST routes: Hummingbird's core storage plus the peer's address, which the
/// admin routes check, and the connection, which the lost-answer fault drops.
struct ServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}

/// HTTP dates (RFC 9110 IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func string(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return "\(days[(parts.weekday ?? 1) - 1]), \(two(parts.day)) \(months[(parts.month ?? 1) - 1]) "
            + "\(parts.year ?? 1970) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT"
    }
}
