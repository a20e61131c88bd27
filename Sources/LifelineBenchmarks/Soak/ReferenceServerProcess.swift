import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// `lifeline serve` in a child process, so that its sockets, memory and CPU are not counted with the sessions
/// under measurement, and its admin API, which load tests drive it through.
final class ReferenceServerProcess: Sendable {
    /// Why talking to the server failed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let api: URL
    /// The API of the same server's gateway port (`--gateway-port`): its events socket is the gateway's.
    let gatewayAPI: URL
    let events: String
    let admin: String
    private let process: Process

    /// The servers started and not yet stopped, for ``stopAll(grace:)``.
    private static let running = Mutex<[ObjectIdentifier: Process]>([:])

    private init(process: Process, api: URL, gatewayAPI: URL, events: String, admin: String) {
        self.process = process
        self.api = api
        self.gatewayAPI = gatewayAPI
        self.events = events
        self.admin = admin
        Self.running.withLock { $0[ObjectIdentifier(process)] = process }
    }

    /// Stops every server this process started and has not stopped (a signal ends the soak early), each as
    /// ``stop(grace:)`` does.
    static func stopAll(grace: Duration) {
        let processes = running.withLock { running in
            defer { running = [:] }
            return Array(running.values)
        }
        for process in processes { stop(process, grace: grace) }
    }

    /// Starts `lifeline serve --port 0 --gateway-port 0 --json` (this executable) and returns once it accepts
    /// connections: bonfire on one port, the gateway on the other, one world behind both.
    ///
    /// - Parameter rateLimits: Whether the server keeps stoatchat's REST rate limits.
    static func start(rateLimits: Bool) throws -> ReferenceServerProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        process.arguments =
            ["serve", "--port", "0", "--gateway-port", "0", "--json"] + (rateLimits ? [] : ["--no-rate-limits"])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var bytes: [UInt8] = []
        while true {
            guard let byte = output.fileHandleForReading.readData(ofLength: 1).first else {
                process.terminate()
                throw Failure(description: "lifeline serve ended before it said where it is")
            }
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        // Every key but `servers` (the seeded world) is a string.
        guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let api = (object["api"] as? String).flatMap(URL.init(string:)),
            let gatewayAPI = (object["gateway_api"] as? String).flatMap(URL.init(string:)),
            let events = object["events"] as? String,
            let admin = object["admin"] as? String
        else {
            process.terminate()
            throw Failure(description: "lifeline serve did not say where it is")
        }
        return ReferenceServerProcess(process: process, api: api, gatewayAPI: gatewayAPI, events: events, admin: admin)
    }

    /// Stops the server: SIGTERM (it closes its sockets and exits), then SIGKILL after `grace`.
    ///
    /// The server's graceful shutdown waits for its open connections to end, and a client may hold one open
    /// that it never uses (a soak once left a socket that had sent nothing, and the server waited for it
    /// forever); a load run must end all the same.
    func stop(grace: Duration = .seconds(10)) {
        Self.running.withLock { $0[ObjectIdentifier(process)] = nil }
        Self.stop(process, grace: grace)
    }

    private static func stop(_ process: Process, grace: Duration) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + grace
        while process.isRunning, ContinuousClock.now < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The admin API's client.
    var client: AdminClient { AdminClient(admin: admin, api: api) }

    /// `POST <admin>/<route>` with a JSON body (see ``AdminClient/admin(_:_:timeout:)``).
    @discardableResult
    func admin(_ route: String, _ body: [String: Any] = [:], timeout: Duration = .seconds(60)) async throws -> Any? {
        try await client.admin(route, body, timeout: timeout)
    }

    /// `GET <api>/<path>` with a session token (see ``AdminClient/get(_:token:)``).
    func get(_ path: String, token: String) async throws -> Any {
        try await client.get(path, token: token)
    }
}

/// The reference server's admin API and REST API, over HTTP.
struct AdminClient: Sendable {
    let admin: String
    let api: URL

    /// `POST <admin>/<route>` with a JSON body; returns the decoded JSON answer (`nil` for 204).
    ///
    /// - Throws: ``ReferenceServerProcess/Failure`` when the server answers anything but 200 or 204, or cannot be reached.
    @discardableResult
    func admin(_ route: String, _ body: [String: Any] = [:], timeout: Duration = .seconds(60)) async throws -> Any? {
        var request = HTTPClientRequest(url: "\(admin)/\(route)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
        let data = try await response.body.collect(upTo: 64 << 20)
        guard response.status.code == 200 || response.status.code == 204 else {
            throw ReferenceServerProcess.Failure(
                description: "admin \(route) answered \(response.status.code): \(String(buffer: data).prefix(200))")
        }
        guard data.readableBytes > 0 else { return nil }
        return try JSONSerialization.jsonObject(with: Data(data.readableBytesView))
    }

    /// `GET <api>/<path>` with a session token; returns the decoded JSON answer.
    func get(_ path: String, token: String) async throws -> Any {
        var request = HTTPClientRequest(url: api.absoluteString + path)
        request.headers.add(name: "X-Session-Token", value: token)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let data = try await response.body.collect(upTo: 64 << 20)
        guard response.status.code == 200 else {
            throw ReferenceServerProcess.Failure(description: "GET \(path) answered \(response.status.code)")
        }
        return try JSONSerialization.jsonObject(with: Data(data.readableBytesView))
    }

    /// `GET <admin>/<route>`; returns the decoded JSON answer.
    func adminGet(_ route: String) async throws -> Any {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "\(admin)/\(route)"), timeout: .seconds(60))
        let data = try await response.body.collect(upTo: 64 << 20)
        guard response.status.code == 200 else {
            throw ReferenceServerProcess.Failure(description: "admin \(route) answered \(response.status.code)")
        }
        return try JSONSerialization.jsonObject(with: Data(data.readableBytesView))
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
