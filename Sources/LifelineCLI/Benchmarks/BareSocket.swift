import Foundation
import LifelineStoat
import Logging
import NIOCore
import Synchronization
import WSClient

/// The baselines' client: a bare WebSocket that authenticates and waits for Ready without decoding it,
/// then writes frames and stays open as asked — what any client must do at the least.
enum BareSocket {
    /// Connects, authenticates, waits for the second message (Ready), hands it to `ready` (after the time
    /// is taken), then runs `then` with the writer; the socket stays open until `then` returns. Returns the
    /// time from the start to Ready. With `messagePack`, it asks for `format=msgpack` and authenticates with a
    /// binary frame.
    static func run(
        url: String, token: String, messagePack: Bool = false,
        then: @escaping @Sendable (WebSocketOutboundWriter) async throws -> Void = { _ in },
        ready: @escaping @Sendable (WebSocketMessage) -> Void = { _ in }
    ) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        let readyAt = Mutex<ContinuousClock.Instant?>(nil)
        var configuration = WebSocketClientConfiguration()
        configuration.maxFrameSize = 64 << 20
        configuration.closeTimeout = .milliseconds(10)
        let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        try await WebSocketClient.connect(
            url: url + (messagePack ? "?version=1&format=msgpack" : "?version=1&format=json"),
            configuration: configuration, logger: logger
        ) {
            inbound, outbound, _ in
            if messagePack {
                try await outbound.write(
                    .binary(ByteBuffer(bytes: BonfireClientFrame.authenticate(token: token).messagePack)))
            } else {
                try await outbound.write(.text(#"{"type":"Authenticate","token":"\#(token)"}"#))
            }
            var messages = 0
            for try await message in inbound.messages(maxSize: 64 << 20) {
                messages += 1
                if messages == 2 {
                    readyAt.withLock { $0 = clock.now }
                    ready(message)
                    break
                }
            }
            try await then(outbound)
        }
        guard let ready = readyAt.withLock({ $0 }) else { throw BenchmarkError("the bare socket got no Ready") }
        return start.duration(to: ready)
    }
}
