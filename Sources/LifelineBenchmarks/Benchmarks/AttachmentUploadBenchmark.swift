import AsyncHTTPClient
import Foundation
import LifelineCore
import LifelineStoat
import NIOCore
import StoatReferenceServer

/// `attachment-upload`: a 10 MB file uploaded through ``StoatFileServer`` (streamed from disk in chunks, with
/// progress, through the API's rate limits and origin rule), against a bare AsyncHTTPClient multipart `POST` of
/// the same file — read whole into memory first — to the same file server. Both run alternately on one
/// reference server and one HTTP client; the figure is the throughput in MB/s, the median of the rounds. Goal:
/// the client's throughput at least 0.9 of the bare one's.
enum AttachmentUploadBenchmark {
    static let size = 10_000_000

    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let rounds = quick ? 2 : 7
        let server = try await ReferenceServer.start(.init(rateLimits: .disabled))
        let http = HTTPClient(
            eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: StoatAPI.httpClientConfiguration())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-upload-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("attachment.bin").path
        var random = BenchmarkRandomNumberGenerator(seed: 35)
        var bytes = [UInt8](repeating: 0, count: size)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &random) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let account = server.defaultAccount
        let credentials = SessionCredentials(token: account.token, userID: account.userID)
        let api = StoatAPI(baseURL: server.apiURL, httpClient: http, requestTimeout: .seconds(300))
        let files = try await api.fileServer()
        let clock = ContinuousClock()
        var lifeline: [Duration] = []
        var baseline: [Duration] = []
        // One round of each first, unmeasured: connections and the server's first allocations.
        _ = try await files.upload(contentsOf: path, as: credentials)
        _ = try await bare(path: path, server: server, token: account.token, http: http)
        for _ in 0..<rounds {
            let start = clock.now
            _ = try await files.upload(contentsOf: path, as: credentials)
            lifeline.append(clock.now - start)
            let bareStart = clock.now
            _ = try await bare(path: path, server: server, token: account.token, http: http)
            baseline.append(clock.now - bareStart)
        }
        try await http.shutdown()
        await server.stop()
        func megabytesPerSecond(_ duration: Duration) -> Double {
            Double(size) / 1e6 / max(duration.secondsValue, 1e-9)
        }
        let ours = megabytesPerSecond(median(lifeline))
        let theirs = megabytesPerSecond(median(baseline))
        return BenchmarkResult(
            name: "attachment-upload", unit: "MB/s", lifeline: ours, baseline: theirs, goal: .ratioAtLeast(0.9),
            detail: "a \(size / 1_000_000) MB file to the reference server's file server; the client streams it "
                + "from disk, the bare POST sends it from memory; median of \(rounds)",
            extra: [
                "lifeline_ms": .number(median(lifeline).milliseconds),
                "baseline_ms": .number(median(baseline).milliseconds),
            ])
    }

    /// The baseline: the file read whole, framed as one `multipart/form-data` body, posted with the token.
    static func bare(path: String, server: ReferenceServer, token: String, http: HTTPClient) async throws -> String {
        let contents = try Data(contentsOf: URL(fileURLWithPath: path))
        let boundary = "bare-\(UUID().uuidString)"
        var body = ByteBuffer()
        body.writeString(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"attachment.bin\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n")
        body.writeBytes(contents)
        body.writeString("\r\n--\(boundary)--\r\n")
        var request = HTTPClientRequest(url: server.fileServerURL.absoluteString + "/attachments")
        request.method = .POST
        request.headers.add(name: "X-Session-Token", value: token)
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        request.body = .bytes(body)
        let response = try await http.execute(request, timeout: .seconds(300))
        let answer = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw BareUploadFailed(status: Int(response.status.code)) }
        return String(buffer: answer)
    }

    struct BareUploadFailed: Error {
        var status: Int
    }
}
