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

/// The same bare client on the channel-handler socket (`WebSocketTransport`): authenticates when the socket
/// opens and counts its messages; the second is Ready, which it does not decode.
final class BareChannelSocket: WebSocketTransportDelegate {
    private struct State {
        var messages = 0
        var waiter: CheckedContinuation<Void, any Error>?
        var readyAt: ContinuousClock.Instant?
        var end: WebSocketTransportEnd?
    }

    let token: String
    let onReady: @Sendable () -> Void
    /// Whether to decode Ready (and drop it), to tell what decoding leaves behind from what a session holds.
    let decodesReady: Bool
    private let state = Mutex(State())

    init(token: String, decodesReady: Bool = false, onReady: @escaping @Sendable () -> Void = {}) {
        self.token = token
        self.decodesReady = decodesReady
        self.onReady = onReady
    }

    /// Connects, authenticates and waits for Ready; returns the time from the start to Ready, and the socket
    /// (open, to be closed by the caller).
    static func run(
        connector: WebSocketConnector, url: String, token: String
    ) async throws -> (Duration, WebSocketTransport) {
        let clock = ContinuousClock()
        let start = clock.now
        let client = BareChannelSocket(token: token)
        let socket = connector.makeSocket(delegate: client)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            client.state.withLock { $0.waiter = continuation }
            socket.connect(to: URL(string: url + "?version=1&format=json")!)
        }
        guard let ready = client.state.withLock({ $0.readyAt }) else {
            throw BenchmarkError("the bare channel socket got no Ready")
        }
        return (start.duration(to: ready), socket)
    }

    func webSocketOpened(_ socket: WebSocketTransport) {
        socket.send(text: #"{"type":"Authenticate","token":"\#(token)"}"#)
    }

    func webSocket(_ socket: WebSocketTransport, received message: WebSocketTransport.Message) {
        socket.consumed(messages: 1, bytes: message.bytes.readableBytes)
        let (waiter, isReady) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, Bool) in
            state.messages += 1
            guard state.messages == 2 else { return (nil, false) }
            state.readyAt = ContinuousClock.now
            defer { state.waiter = nil }
            return (state.waiter, true)
        }
        if isReady, decodesReady {
            let bytes = Data(message.bytes.readableBytesView)
            guard case .event(.ready) = BonfireDecoder().decode(bytes) else { fatalError("Ready did not decode") }
        }
        if isReady { onReady() }
        waiter?.resume()
    }

    func webSocket(_ socket: WebSocketTransport, endedWith end: WebSocketTransportEnd) {
        let waiter = state.withLock { state in
            state.end = end
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: end)
    }
}
