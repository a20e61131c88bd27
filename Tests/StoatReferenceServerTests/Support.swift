import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

@testable import StoatReferenceServer

/// A clock the tests set by hand, injected as the server's `now`.
final class ManualClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// A plain HTTP answer: status, headers and the body parsed as JSON when it is.
struct HTTPAnswer {
    let status: Int
    let headers: [String: String]
    let body: Data

    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
    var jsonArray: [[String: Any]]? { try? JSONSerialization.jsonObject(with: body) as? [[String: Any]] }
    var errorType: String? { json?["type"] as? String }
    var text: String { String(decoding: body, as: UTF8.self) }
    /// The `error.code` of Rocket's JSON catcher body, nil for anything else.
    var catcherCode: Int? { (json?["error"] as? [String: Any])?["code"] as? Int }
}

extension ReferenceServer {
    /// Starts a server for one test, with a manual clock when given.
    static func forTest(
        clock: ManualClock? = nil, configure: (inout Configuration) -> Void = { _ in }
    ) async throws
        -> ReferenceServer
    {
        var configuration = Configuration()
        if let clock { configuration.now = { clock.now } }
        configure(&configuration)
        return try await ReferenceServer.start(configuration)
    }

    /// Calls the REST API with plain HTTP, asking for JSON (`Accept: application/json`) unless `headers` say
    /// otherwise.
    func http(
        _ method: HTTPMethod, _ path: String, token: String? = nil, json: String? = nil, base: URL? = nil,
        headers extra: [(String, String)] = []
    ) async throws -> HTTPAnswer {
        var request = HTTPClientRequest(url: (base ?? apiURL).absoluteString + path)
        request.method = method
        if !extra.contains(where: { $0.0.lowercased() == "accept" }) {
            request.headers.add(name: "Accept", value: "application/json")
        }
        for (name, value) in extra { request.headers.replaceOrAdd(name: name, value: value) }
        if let token { request.headers.add(name: "X-Session-Token", value: token) }
        if let json {
            if !extra.contains(where: { $0.0.lowercased() == "content-type" }) {
                request.headers.add(name: "Content-Type", value: "application/json")
            }
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: TimeAmount(.failureBound))
        let body = try await response.body.collect(upTo: 64 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return HTTPAnswer(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
    }

    /// The events URL with the usual query and the given extra items.
    func eventsURL(_ extra: String = "") -> String {
        eventsURL.absoluteString + "?version=1&format=json" + extra
    }

    /// Calls the admin API with a JSON body (`{}` for a POST without one).
    func admin(_ method: HTTPMethod, _ path: String, json: String? = nil) async throws -> HTTPAnswer {
        try await http(method, path, json: json ?? (method == .POST ? "{}" : nil), base: adminURL)
    }

    /// Connects a plain socket, authenticates with `token` by frame, reads Authenticated and Ready, and waits
    /// until the server treats the socket as listening (its presence counted).
    func connectReady(token: String) async throws -> TestSocket {
        let socket = await TestSocket.connect(eventsURL())
        await socket.send(#"{"type":"Authenticate","token":"\#(token)"}"#)
        #expect(try await socket.nextType() == "Authenticated")
        #expect(try await socket.nextType() == "Ready")
        // Ready is written before the socket starts listening: a Ping's Pong proves that it listens.
        await socket.send(#"{"type":"Ping","data":424242}"#)
        #expect(try await socket.next(skipping: ["UserUpdate", "UserSlowmodes"]) == #"{"type":"Pong","data":424242}"#)
        return socket
    }
}

/// Runs `body` with a fresh server and stops it afterwards, even when the body throws.
func withServer(
    clock: ManualClock? = nil, configure: (inout ReferenceServer.Configuration) -> Void = { _ in },
    _ body: (ReferenceServer) async throws -> Void
) async throws {
    let server = try await ReferenceServer.forTest(clock: clock, configure: configure)
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
