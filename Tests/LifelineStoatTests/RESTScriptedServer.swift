import Foundation
import LifelineStoat
import NIOCore
import NIOPosix
import Synchronization

/// A request as a ``ScriptedHTTPServer`` received it.
struct RecordedRequest: Sendable, CustomStringConvertible {
    /// The method (`GET`).
    var method: String
    /// The target, with its query (`/channels/C/messages?limit=2`).
    var target: String
    /// The headers, names in lower case.
    var headers: [(name: String, value: String)]
    /// The body as text.
    var body: String

    /// The path, without the query.
    var path: String { String(target.prefix { $0 != "?" }) }
    /// The query, without the `?`; empty when there is none.
    var query: String { target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } ?? "" }

    /// The first value of a header, by name in any case.
    func header(_ name: String) -> String? {
        headers.first { $0.name == name.lowercased() }?.value
    }

    var description: String { "\(method) \(target)" }
}

/// An answer a ``ScriptedHTTPServer`` gives.
struct ScriptedResponse: Sendable {
    var status: Int
    var headers: [(String, String)] = []
    var body: String = ""

    /// A JSON answer.
    static func json(_ status: Int, _ body: String, headers: [(String, String)] = []) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// A redirect to `location`.
    static func redirect(_ status: Int, to location: String) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: [("Location", location)])
    }
}

/// An HTTP/1.1 server on loopback that records every request and answers each with what a handler says:
/// for what only a misbehaving or a real server does (redirects, rate limits, headers, framework errors).
/// Each connection carries one request and is closed after the answer.
final class ScriptedHTTPServer: Sendable {
    let channel: any NIOCore.Channel
    private let log: RequestLog

    /// The server's base URL, `http://127.0.0.1:PORT`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// The port it listens on.
    var port: Int { channel.localAddress?.port ?? 0 }
    /// Every request received so far, in order.
    var requests: [RecordedRequest] { log.requests.withLock { $0 } }

    private init(channel: any NIOCore.Channel, log: RequestLog) {
        self.channel = channel
        self.log = log
    }

    /// Starts a server answering with `handler`.
    static func start(
        _ handler: @escaping @Sendable (RecordedRequest) -> ScriptedResponse
    ) async throws -> ScriptedHTTPServer {
        let log = RequestLog()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(
                        RequestHandler(
                            record: { request in log.requests.withLock { $0.append(request) } }, handler: handler))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return ScriptedHTTPServer(channel: channel, log: log)
    }

    /// Stops listening.
    func stop() async throws {
        try await channel.close()
    }

    /// The requests received, shared by the server and its connections' handlers.
    private final class RequestLog: Sendable {
        let requests = Mutex<[RecordedRequest]>([])
    }

    /// Reads one request (head and `Content-Length` body), records it, answers and closes.
    private final class RequestHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let record: @Sendable (RecordedRequest) -> Void
        let handler: @Sendable (RecordedRequest) -> ScriptedResponse
        var buffer: [UInt8] = []
        var answered = false

        init(
            record: @escaping @Sendable (RecordedRequest) -> Void,
            handler: @escaping @Sendable (RecordedRequest) -> ScriptedResponse
        ) {
            self.record = record
            self.handler = handler
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answered else { return }
            var bytes = unwrapInboundIn(data)
            buffer += bytes.readBytes(length: bytes.readableBytes) ?? []
            guard let request = parse() else { return }
            answered = true
            record(request)
            let response = handler(request)
            var head = "HTTP/1.1 \(response.status) Scripted\r\n"
            for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(response.body.utf8.count)\r\nConnection: close\r\n\r\n"
            let out = context.channel.allocator.buffer(bytes: Array(head.utf8) + Array(response.body.utf8))
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(out)).whenComplete { _ in bound.value.close(promise: nil) }
        }

        /// The request, once its head and whole body have arrived.
        private func parse() -> RecordedRequest? {
            let separator: [UInt8] = Array("\r\n\r\n".utf8)
            guard let end = buffer.indices.dropLast(3).first(where: { Array(buffer[$0..<$0 + 4]) == separator })
            else { return nil }
            let head = String(decoding: buffer[..<end], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count >= 2 else { return nil }
            let headers = lines.compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (
                    line[..<colon].lowercased(),
                    line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                )
            }
            let length = headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
            let bodyStart = end + 4
            guard buffer.count >= bodyStart + length else { return nil }
            return RecordedRequest(
                method: String(requestLine[0]), target: String(requestLine[1]), headers: headers,
                body: String(decoding: buffer[bodyStart..<bodyStart + length], as: UTF8.self))
        }
    }
}

/// Runs `body` with a started ``ScriptedHTTPServer`` and stops it afterwards.
func withScriptedServer(
    _ handler: @escaping @Sendable (RecordedRequest) -> ScriptedResponse,
    _ body: (ScriptedHTTPServer) async throws -> Void
) async throws {
    let server = try await ScriptedHTTPServer.start(handler)
    do {
        try await body(server)
        try await server.stop()
    } catch {
        try await server.stop()
        throw error
    }
}
