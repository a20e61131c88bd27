import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import Synchronization

/// The events socket at `/events`, as bonfire or as the gateway (``ReferenceServer/Configuration/events``):
/// upgrades (or refuses, under the fault), then runs one reader and one writer per connection.
///
/// The reader hands each client message to ``ServerState`` in order; the writer drains the connection's
/// outbound queue, so that frames from the state actor, fan-out and faults never interleave with a fragmented
/// Ready. A message above the size limit closes this connection alone with 1009. The upgrade takes `version`,
/// `format` (`json`; `msgpack` for MessagePack in binary frames; anything else is JSON, as both servers read
/// it), `token` and `ready` from the query, as bonfire's handshake callback and the gateway's `init` do. A
/// gateway socket that receives nothing for ``ReferenceServer/Configuration/gatewayIdleTimeout`` is closed
/// with 1002, as Bandit closes an idle WebSocket (`timeout: 35_000` in `lib/stoat_gateway/web/router.ex`).
struct EventsEndpoint: Sendable {
    typealias Handler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    let state: ServerState
    let configuration: ReferenceServer.Configuration

    func shouldUpgrade(request: HTTPRequest, channel: any Channel) async throws -> ShouldUpgradeResult<Handler> {
        let uri = URI(request.path ?? "/")
        guard uri.path == "/events" else { return .dontUpgrade }
        let query = uri.queryParameters
        // Both servers read an unknown format as JSON.
        let format: WireFormat = query["format"] == "msgpack" ? .messagePack : .json
        let dialect = SocketDialect(server: configuration.events, format: format)
        guard await state.admitUpgrade() else { return .dontUpgrade }
        let readyValues = query.getAll("ready").map { String($0) }
        let filter = ReadyFilter(queryValues: readyValues)
        // nil: an item that crashes the gateway's `init` (the connection ends as soon as it opens).
        let gatewayFields = GatewayReadyFields(queryValues: readyValues)
        let token = query["token"].map { String($0) }
        return .upgrade([:]) { inbound, outbound, _ in
            try await run(
                inbound: inbound, outbound: outbound, channel: channel,
                socket: .init(filter: filter, gatewayFields: gatewayFields, dialect: dialect), token: token)
        }
    }

    /// What the upgrade decided about a socket.
    private struct SocketSetup {
        var filter: ReadyFilter
        var gatewayFields: GatewayReadyFields?
        var dialect: SocketDialect
    }

    private func run(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel,
        socket setup: SocketSetup, token: String?
    ) async throws {
        let (queue, continuation) = AsyncStream.makeStream(of: Outbound.self)
        let socket = LiveSocket(outbound: continuation, channel: channel, dialect: setup.dialect)
        let id = await state.open(
            socket: socket, filter: setup.filter, gatewayFields: setup.gatewayFields ?? .standard)
        let state = state
        let maxSize = configuration.maxInboundFrameSize
        let fragmentSize = configuration.outboundFragmentSize
        let closeTimeout = configuration.closeTimeout
        let gateway = setup.dialect.server == .gateway
        if gateway && setup.gatewayFields == nil { continuation.yield(.drop) }
        // When the client last sent something, for the gateway's idle timeout.
        let lastHeard = LastHeard()
        let idleTimeout = gateway ? configuration.gatewayIdleTimeout : nil
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await Self.write(
                        queue, to: outbound, channel: channel, fragmentSize: fragmentSize, closeTimeout: closeTimeout)
                }
                if let idleTimeout {
                    group.addTask {
                        var deadline = lastHeard.instant.withLock { $0 } + idleTimeout
                        while true {
                            try await Task.sleep(until: deadline)
                            let next = lastHeard.instant.withLock { $0 } + idleTimeout
                            if next <= .now { break }
                            deadline = next
                        }
                        continuation.yield(.close(code: .protocolError, reason: nil))
                        // The writer ends the connection; this task waits with it.
                        try await Task.sleep(for: .seconds(3600))
                    }
                }
                group.addTask {
                    if let token { await state.authenticate(token: token, connectionID: id) }
                    for try await message in inbound.messages(maxSize: maxSize) {
                        lastHeard.instant.withLock { $0 = .now }
                        switch message {
                        case .text(let text): await state.received(.text(text), connectionID: id)
                        case .binary(let buffer):
                            await state.received(.binary(Array(buffer.readableBytesView)), connectionID: id)
                        }
                    }
                }
                // Whichever ends first ends the connection: the client closed, or the server closed or dropped it.
                try await group.next()
                group.cancelAll()
            }
        } catch {
            continuation.finish()
            await state.close(connectionID: id)
            throw error
        }
        continuation.finish()
        await state.close(connectionID: id)
    }

    private static func write(
        _ queue: AsyncStream<Outbound>, to outbound: WebSocketOutboundWriter, channel: any Channel,
        fragmentSize: Int, closeTimeout: Duration
    ) async throws {
        for await command in queue {
            switch command {
            case .text(let buffer), .binary(let buffer):
                let isText = if case .text = command { true } else { false }
                if buffer.readableBytes <= fragmentSize {
                    let frame = WebSocketFrame(fin: true, opcode: isText ? .text : .binary, data: buffer)
                    try await outbound.write(.custom(frame))
                } else {
                    let fragments: (inout WebSocketOutboundWriter.MessageWriter) async throws -> Void = { writer in
                        var remaining = buffer
                        while remaining.readableBytes > 0,
                            let slice = remaining.readSlice(length: min(fragmentSize, remaining.readableBytes))
                        {
                            try await writer(slice)
                        }
                    }
                    if isText {
                        try await outbound.withTextMessageWriter(fragments)
                    } else {
                        try await outbound.withBinaryMessageWriter(fragments)
                    }
                }
            case .close(let code, let reason):
                try await outbound.close(code, reason: reason)
                return
            case .drop:
                // bonfire returns: what was written is flushed, then the connection is shut down without a close
                // frame. The input stays open until the peer closes or the close timeout passes, so that the
                // peer's late frames never turn the shutdown into a reset that could discard what it was sent.
                try? await channel.close(mode: .output)
                try? await Task.sleep(for: closeTimeout)
                return
            case .abort:
                // A closed channel is the point of the fault; an error closing it changes nothing.
                try? await channel.close()
                return
            }
        }
    }
}

/// When a socket last heard from its client, shared by its reader and its idle timer.
private final class LastHeard: Sendable {
    let instant = Mutex(ContinuousClock.now)
}
