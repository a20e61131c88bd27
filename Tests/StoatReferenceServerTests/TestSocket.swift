import Foundation
import Logging
import NIOCore
import WSClient

@testable import StoatReferenceServer

/// A plain WebSocket client for the tests: no Lifeline code. Received messages are buffered in order;
/// `next()` awaits the next one with a timeout that is only a failure bound. A binary message reads as the
/// JSON its MessagePack stands for (keys sorted); `nextMessage()` gives it as it came.
actor TestSocket {
    /// A message as it arrived.
    enum Message: Equatable {
        case text(String)
        case binary([UInt8])

        /// The text, or the JSON a binary message's MessagePack stands for.
        var text: String {
            switch self {
            case .text(let text): text
            case .binary(let bytes):
                MessagePackValue(bytes: bytes)?.bonfireJSON?.wire.text ?? "<binary \(bytes.count) bytes>"
            }
        }
    }

    struct Timeout: Error, CustomStringConvertible {
        var description: String { "No message arrived in time" }
    }

    private var buffer: [Message] = []
    private var finished = false
    private var waiter: CheckedContinuation<Void, Never>?
    private let outgoing: AsyncStream<Message>.Continuation
    private var task: Task<WebSocketCloseFrame?, any Error>?

    private init(outgoing: AsyncStream<Message>.Continuation) {
        self.outgoing = outgoing
    }

    /// Connects to `url` (a full events URL with its query) and starts buffering messages.
    static func connect(_ url: String) async -> TestSocket {
        let (outgoingStream, outgoing) = AsyncStream.makeStream(of: Message.self)
        let socket = TestSocket(outgoing: outgoing)
        await socket.start(url: url, outgoingStream: outgoingStream)
        return socket
    }

    private func start(url: String, outgoingStream: AsyncStream<Message>) {
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 16, closeTimeout: .milliseconds(500))
        let logger = Logger(label: "test-socket", factory: { _ in SwiftLogNoOpLogHandler() })
        task = Task {
            defer { self.finish() }
            return try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await message in outgoingStream {
                            switch message {
                            case .text(let text): try await outbound.write(.text(text))
                            case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                            }
                        }
                    }
                    for try await message in inbound.messages(maxSize: 64 << 20) {
                        switch message {
                        case .text(let text): await self.received(.text(text))
                        case .binary(let buffer): await self.received(.binary(Array(buffer.readableBytesView)))
                        }
                    }
                    group.cancelAll()
                }
            }
        }
    }

    private func received(_ message: Message) {
        buffer.append(message)
        wake()
    }

    private func finish() {
        finished = true
        wake()
    }

    private func wake() {
        waiter?.resume()
        waiter = nil
    }

    /// Sends a text frame.
    func send(_ text: String) {
        outgoing.yield(.text(text))
    }

    /// Sends a binary frame.
    func send(binary bytes: [UInt8]) {
        outgoing.yield(.binary(bytes))
    }

    /// The next message's text (a binary one as the JSON it stands for), or nil once the socket closed with
    /// nothing left. Throws `Timeout` past the bound.
    func next(timeout: Duration = .seconds(30)) async throws -> String? {
        try await nextMessage(timeout: timeout)?.text
    }

    /// The next message as it came, or nil once the socket closed with nothing left.
    func nextMessage(timeout: Duration = .seconds(30)) async throws -> Message? {
        let deadline = ContinuousClock.now + timeout
        while buffer.isEmpty && !finished {
            guard ContinuousClock.now < deadline else { throw Timeout() }
            let alarm = Task {
                try await Task.sleep(until: deadline)
                self.wake()
            }
            await withCheckedContinuation { waiter = $0 }
            alarm.cancel()
        }
        return buffer.isEmpty ? nil : buffer.removeFirst()
    }

    /// The next message whose `type` is not in `types` (others are read and dropped).
    func next(skipping types: Set<String>, timeout: Duration = .seconds(30)) async throws -> String? {
        while let text = try await next(timeout: timeout) {
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            if let type = object?["type"] as? String, types.contains(type) { continue }
            return text
        }
        return nil
    }

    /// The next message of type `type`, skipping others; nil if the socket closes first.
    nonisolated func nextEvent(_ type: String, timeout: Duration = .seconds(30)) async throws -> [String: Any]? {
        while let object = try await nextJSON(timeout: timeout) {
            if object["type"] as? String == type { return object }
        }
        return nil
    }

    /// The next message parsed as a JSON object, skipping messages of `types`.
    nonisolated func nextJSON(
        skipping types: Set<String>, timeout: Duration = .seconds(30)
    ) async throws
        -> [String: Any]?
    {
        guard let text = try await next(skipping: types, timeout: timeout) else { return nil }
        return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// The next message parsed as a JSON object.
    nonisolated func nextJSON(timeout: Duration = .seconds(30)) async throws -> [String: Any]? {
        guard let text = try await next(timeout: timeout) else { return nil }
        return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// The next message's `type`.
    nonisolated func nextType(timeout: Duration = .seconds(30)) async throws -> String? {
        try await nextJSON(timeout: timeout)?["type"] as? String
    }

    /// How the socket ended: the close frame (nil when the connection ended without one), or the error.
    func outcome() async -> Result<WebSocketCloseFrame?, any Error> {
        guard let task else { return .success(nil) }
        return await task.result
    }

    /// Closes the socket from the client side.
    func close() {
        outgoing.finish()
        task?.cancel()
    }
}
