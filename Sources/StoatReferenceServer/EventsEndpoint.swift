import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket

/// The Bonfire events socket at `/events`: upgrades (or refuses, under the fault), then runs one reader and
/// one writer per connection.
///
/// The reader hands each client frame to ``ServerState`` in order; the writer drains the connection's
/// outbound queue, so that frames from the state actor, fan-out and faults never interleave with a fragmented
/// Ready. A malformed or unknown frame changes nothing but the record; a message above the size limit closes
/// this connection alone with 1009. The upgrade takes `version`, `format` (`json`, or anything but `msgpack`, which is refused),
/// `token` and `ready` from the query, as bonfire's handshake callback does.
struct EventsEndpoint: Sendable {
    typealias Handler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    let state: ServerState
    let configuration: ReferenceServer.Configuration

    func shouldUpgrade(request: HTTPRequest, channel: any Channel) async throws -> ShouldUpgradeResult<Handler> {
        let uri = URI(request.path ?? "/")
        guard uri.path == "/events" else { return .dontUpgrade }
        let query = uri.queryParameters
        // bonfire reads an unknown format as JSON; MessagePack is not spoken here, so it is refused.
        if query["format"] == "msgpack" { return .dontUpgrade }
        guard await state.admitUpgrade() else { return .dontUpgrade }
        let filter = ReadyFilter(queryValues: query.getAll("ready").map { String($0) })
        let token = query["token"].map { String($0) }
        return .upgrade([:]) { inbound, outbound, _ in
            try await run(inbound: inbound, outbound: outbound, channel: channel, filter: filter, token: token)
        }
    }

    private func run(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel,
        filter: ReadyFilter, token: String?
    ) async throws {
        let (queue, continuation) = AsyncStream.makeStream(of: Outbound.self)
        let id = await state.open(socket: LiveSocket(outbound: continuation, channel: channel), filter: filter)
        let state = state
        let maxSize = configuration.maxInboundFrameSize
        let fragmentSize = configuration.outboundFragmentSize
        let closeTimeout = configuration.closeTimeout
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await Self.write(
                        queue, to: outbound, channel: channel, fragmentSize: fragmentSize, closeTimeout: closeTimeout)
                }
                group.addTask {
                    if let token { await state.authenticate(token: token, connectionID: id) }
                    for try await message in inbound.messages(maxSize: maxSize) {
                        switch message {
                        case .text(let text): await state.received(text, connectionID: id)
                        case .binary(let buffer):
                            await state.receivedBinary(byteCount: buffer.readableBytes, connectionID: id)
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
            case .text(let buffer):
                if buffer.readableBytes <= fragmentSize {
                    try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: buffer)))
                } else {
                    try await outbound.withTextMessageWriter { writer in
                        var remaining = buffer
                        while remaining.readableBytes > 0,
                            let slice = remaining.readSlice(length: min(fragmentSize, remaining.readableBytes))
                        {
                            try await writer(slice)
                        }
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
