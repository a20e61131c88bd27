import NIOCore
import NIOWebSocket

/// The frames of an upgraded ``WebSocketTransport``, on its event loop: whole messages out of fragments,
/// pings answered, the peer's close read, every violation turned into a typed end and a closed channel.
///
/// A message is held once, as the bytes it arrived in: an unfragmented message is the frame decoder's
/// slice, a fragmented one is gathered into one buffer, and one that would exceed the limit ends the
/// socket at the fragment that crosses it (a single frame above the limit is refused by the decoder from
/// its header, before its payload is read). A frame from the server that is masked or has a reserved bit
/// set, a continuation without a message, a new message inside another and an unknown opcode are
/// protocol violations. Answers (a pong, a close, the close that ends a violation) are masked, as RFC 6455
/// asks of a client; pings are not answered while the socket's outbound buffer is full.
final class WebSocketFrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let transport: WebSocketTransport
    private let maximumMessageSize: Int
    /// The message being gathered from its fragments.
    private var partial: (buffer: ByteBuffer, isText: Bool)?
    /// Whether the socket is ending: nothing more is read.
    private var isClosing = false

    init(transport: WebSocketTransport, maximumMessageSize: Int) {
        self.transport = transport
        self.maximumMessageSize = maximumMessageSize
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing else { return }
        let frame = unwrapInboundIn(data)
        guard frame.maskKey == nil else {
            return fail(context, .protocolViolation, "the server sent a masked frame", closeCode: .protocolError)
        }
        guard !frame.rsv1, !frame.rsv2, !frame.rsv3 else {
            return fail(
                context, .protocolViolation, "a frame with a reserved bit set (no extension was agreed)",
                closeCode: .protocolError)
        }
        switch frame.opcode {
        case .text, .binary:
            guard partial == nil else {
                return fail(
                    context, .protocolViolation, "a new message began before the last one ended",
                    closeCode: .protocolError)
            }
            if frame.fin {
                deliver(frame.data, isText: frame.opcode == .text, context: context)
            } else {
                partial = (frame.data, frame.opcode == .text)
            }
        case .continuation:
            guard var message = partial else {
                return fail(
                    context, .protocolViolation, "a continuation frame without a message", closeCode: .protocolError)
            }
            // The buffer is now held by `message` alone, so appending grows it in place. (A copy of it taken here
            // beside `message` made every fragment copy the whole message so far: a 1 MB `Ready` cost about a
            // millisecond of copying, measured with perf on `lifeline bench`'s time-to-connected.)
            partial = nil
            // Each is at most the limit (the decoder's bound, and this check's), so the sum cannot overflow.
            guard message.buffer.readableBytes + frame.data.readableBytes <= maximumMessageSize else {
                return fail(
                    context, .messageTooLarge, "a message of more than \(maximumMessageSize) bytes",
                    closeCode: .messageTooLarge)
            }
            var data = frame.data
            message.buffer.writeBuffer(&data)
            if frame.fin {
                deliver(message.buffer, isText: message.isText, context: context)
            } else {
                partial = message
            }
        case .ping:
            // A peer that pings without reading the pongs could grow the outbound buffer without bound; while
            // the socket cannot take more, a ping goes unanswered (RFC 6455 lets a pong answer only the latest).
            guard context.channel.isWritable else { return }
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.data)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .pong:
            break
        case .connectionClose:
            closeReceived(frame, context: context)
        default:
            fail(context, .protocolViolation, "a frame of unknown opcode \(frame.opcode)", closeCode: .protocolError)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case NIOWebSocketError.invalidFrameLength:
            fail(
                context, .messageTooLarge, "a frame of more than \(maximumMessageSize) bytes",
                closeCode: .messageTooLarge, cause: error)
        case let error as NIOWebSocketError:
            fail(context, .protocolViolation, "an invalid frame: \(error)", closeCode: .protocolError, cause: error)
        default:
            transport.record(.dropped, "reading the socket failed: \(error)", cause: error)
            isClosing = true
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        transport.record(
            .dropped, partial == nil ? "the connection closed" : "the connection closed in the middle of a message")
        partial = nil
        context.fireChannelInactive()
    }

    private func deliver(_ bytes: ByteBuffer, isText: Bool, context: ChannelHandlerContext) {
        transport.deliver(isText ? .text(bytes) : .binary(bytes), on: context.channel)
    }

    /// The peer's close frame: its code and reason are the end; the answer echoes the code, and the channel
    /// closes without waiting for the peer.
    private func closeReceived(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        var data = frame.data
        let code = data.readableBytes >= 2 ? data.readInteger(as: UInt16.self) : nil
        let reason = data.readableBytes > 0 ? String(decoding: data.readableBytesView, as: UTF8.self) : nil
        let said = (code.map { "\($0)" } ?? "no code") + (reason.map { ": \($0)" } ?? "")
        transport.record(.closed, "the server closed the socket with \(said)", closeCode: code, closeReason: reason)
        var answer = context.channel.allocator.buffer(capacity: 2)
        // Codes that may not be sent (1005, 1006, 1015, or out of range) are answered without a code.
        if let code, (1000..<5000).contains(code), ![1004, 1005, 1006, 1015].contains(code) {
            answer.writeInteger(code)
        }
        close(context, with: answer)
    }

    private func fail(
        _ context: ChannelHandlerContext, _ code: WebSocketTransportEnd.Code, _ message: String,
        closeCode: WebSocketErrorCode, cause: (any Error)? = nil
    ) {
        transport.record(code, message, cause: cause)
        guard !isClosing else { return }
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: closeCode)
        close(context, with: data)
    }

    /// Sends a close frame and closes the channel in the same turn: no close handshake to wait for.
    private func close(_ context: ChannelHandlerContext, with data: ByteBuffer) {
        isClosing = true
        partial = nil
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        context.close(promise: nil)
    }
}
