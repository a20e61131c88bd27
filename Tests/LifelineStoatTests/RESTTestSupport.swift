import AsyncHTTPClient
import LifelineStoat
import Logging
import NIOCore
import NIOPosix
import StoatReferenceServer
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs `body` against a fresh reference server over loopback and stops the server afterwards, whether the
/// body threw or not.
func withReferenceServer(
    _ configuration: ReferenceServer.Configuration = .init(),
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
    clock: any Clock<Duration> = ContinuousClock(),
    _ body: (ReferenceServer, StoatAPI) async throws -> Void
) async throws {
    let server = try await ReferenceServer.start(configuration)
    let api = StoatAPI(baseURL: server.apiURL, logger: logger, requestTimeout: .failureBound, clock: clock)
    do {
        try await body(server, api)
        await server.stop()
    } catch {
        await server.stop()
        throw error
    }
}

/// Runs `operation`, which must throw a ``StoatAPIError``, and returns that error.
func apiError<T>(
    _ operation: () async throws(StoatAPIError) -> T, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> StoatAPIError {
    let value: T
    do throws(StoatAPIError) {
        value = try await operation()
    } catch {
        return error
    }
    Issue.record("expected a StoatAPIError, got \(value)", sourceLocation: sourceLocation)
    throw CancellationError()
}

/// Runs `body` with a loopback port where nothing listens, held until it returns: a socket bound to the port
/// and never listening refuses every connection, and no server of a test running in parallel can take the
/// port meanwhile (a stopped server's port could be, and then the connection was answered).
func withClosedPort<Result>(_ body: (Int) async throws -> Result) async throws -> Result {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw ClosedPortError(call: "socket", errno: errno) }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
        }
    }
    guard bound else { throw ClosedPortError(call: "bind", errno: errno) }
    return try await body(Int(UInt16(bigEndian: address.sin_port)))
}

/// A socket call that failed while reserving a closed port.
struct ClosedPortError: Error {
    let call: String
    let errno: Int32
}

/// Runs `body` with an HTTP client that fails at once when the connection is refused (the shared client
/// retries until the request's deadline), and shuts the client down afterwards.
func withNonRetryingClient(_ body: (HTTPClient) async throws -> Void) async throws {
    var configuration = StoatAPI.httpClientConfiguration()
    configuration.connectionPool.retryConnectionEstablishment = false
    let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    do {
        try await body(client)
        try await client.shutdown()
    } catch {
        try await client.shutdown()
        throw error
    }
}

/// A log handler that keeps every line, rendered with its metadata, for checks on what was logged.
struct CapturingLogHandler: LogHandler {
    /// The lines logged so far, shared by every copy of the handler.
    final class Lines: Sendable {
        private let storage = Mutex<[String]>([])

        /// Appends a line.
        func append(_ line: String) { storage.withLock { $0.append(line) } }

        /// Every line so far.
        var all: [String] { storage.withLock { $0 } }
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lines.append("\(event.level) \(event.message) \(rendered)")
    }
}

/// A clock whose every reading is `step` later than the previous one, so a measured interval between two
/// readings is exactly `step`.
final class SteppingClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    let step: Duration
    private let readings = Mutex(0)

    init(step: Duration) { self.step = step }

    var now: Instant {
        let count = readings.withLock { count in
            count += 1
            return count
        }
        return Instant(offset: step * count)
    }

    var minimumResolution: Duration { step }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        Issue.record("SteppingClock cannot sleep")
    }
}

/// A TCP server on loopback that answers every connection with the same raw HTTP response, then closes it:
/// for answers the reference server never gives (HTML error pages, broken JSON).
final class CannedHTTPServer: Sendable {
    let channel: any NIOCore.Channel
    /// The server's base URL.
    let url: URL

    private init(channel: any NIOCore.Channel) {
        self.channel = channel
        self.url = URL(string: "http://127.0.0.1:\(channel.localAddress?.port ?? 0)")!
    }

    /// Starts a server answering `status` with `body` as `contentType`.
    static func start(
        status: Int, contentType: String = "application/json", body: String
    ) async throws
        -> CannedHTTPServer
    {
        let bytes = Array(body.utf8)
        let head =
            "HTTP/1.1 \(status) Canned\r\nContent-Type: \(contentType)\r\nContent-Length: \(bytes.count)\r\n"
            + "Connection: close\r\n\r\n"
        let response = Array(head.utf8) + bytes
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(Responder(response: response))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return CannedHTTPServer(channel: channel)
    }

    /// Stops listening.
    func stop() async throws {
        try await channel.close()
    }

    /// Writes the response once the request's first bytes arrive, then closes.
    private final class Responder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let response: [UInt8]
        var answered = false

        init(response: [UInt8]) { self.response = response }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answered else { return }
            answered = true
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: response))).whenComplete {
                _ in bound.value.close(promise: nil)
            }
        }

        typealias OutboundOut = ByteBuffer
    }
}

/// Runs `body` against a ``CannedHTTPServer`` and stops it afterwards.
func withCannedServer(
    status: Int, contentType: String = "application/json", body: String,
    _ operation: (StoatAPI) async throws -> Void
) async throws {
    let server = try await CannedHTTPServer.start(status: status, contentType: contentType, body: body)
    do {
        try await withNonRetryingClient { client in
            try await operation(StoatAPI(baseURL: server.url, httpClient: client, requestTimeout: .failureBound))
        }
        try await server.stop()
    } catch {
        try await server.stop()
        throw error
    }
}
