import Foundation
import LifelineCore
import NIOCore

// The Stoat rules an events connection follows, apart from what carries its frames: how a server's `Error`
// ends it, which frame plays a significant event, how a message's bytes are decoded, and the socket's URL.

extension BonfireError {
    /// How an `Error` event ends the connection: one that says the session cannot authenticate
    /// (`InvalidSession`, `InvalidToken`, `NotAuthenticated`, `UnverifiedAccount`) is permanent — and the
    /// lifecycle confirms an `InvalidSession` before it believes it; every other is a TEMPORARY_FAILURE,
    /// `InvalidPayload` (the server refused a frame the client sent, and closes the connection next) as
    /// `frameRefused`. The server's words travel as the cause (``StoatConnectionErrorDetails/detail``); the message
    /// stays the kind.
    var connectionEnd: SessionFailure {
        let cause = StoatConnectionError(
            code: .serverError, message: "the server answered \(kind)", detail: self.detail)
        guard isAuthenticationError else {
            let code: TemporaryFailureCause.Code = kind == "InvalidPayload" ? .frameRefused : .serverError
            return .temporary(TemporaryFailureCause(code: code, message: kind, cause: cause))
        }
        let code: PermanentFailureReason.Code = kind == "InvalidSession" ? .invalidSession : .authenticationFailed
        return .permanent(PermanentFailureReason(code: code, message: kind, cause: cause))
    }
}

extension BonfireClientFrame {
    /// The frame that plays a significant event. Stoat answers none of them, so success is the frame written.
    ///
    /// - Throws: ``StoatConnectionErrorCode/unsupportedEvent`` for a kind Stoat has no frame for.
    init(playing event: SignificantEvent) throws(StoatConnectionError) {
        switch event.kind {
        case .subscribe: self = .subscribe(serverID: event.target)
        case .beginTyping: self = .beginTyping(channel: event.target)
        case .endTyping: self = .endTyping(channel: event.target)
        default:
            throw StoatConnectionError(code: .unsupportedEvent, message: "Stoat has no frame for \(event.kind)")
        }
    }
}

extension BonfireDecoder {
    /// Decodes a text message straight from the bytes it arrived in (no `String`, no second copy), with the
    /// reasons of the `Bulk` events it skipped.
    func decodeReportingSkips(_ buffer: ByteBuffer) -> (outcome: Outcome, skipped: [String]) {
        buffer.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return decodeReportingSkips(Data()) }
            return decodeReportingSkips(
                Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
        }
    }

    /// Decodes a binary (MessagePack) message straight from the bytes it arrived in.
    func decode(messagePack buffer: ByteBuffer) -> Outcome {
        buffer.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return decode(messagePack: Data()) }
            return decode(
                messagePack: Data(
                    bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
        }
    }
}

/// The events socket's URL with the query Stoat expects (`version=1&format=json`, or `format=msgpack`, and
/// one `ready` per field asked for); never the token.
func eventsSocketURL(_ base: String, format: StoatWireFormat, readyFields: [String]) -> String {
    var url = base
    url += url.contains("?") ? "&" : "?"
    url += "version=1&format=\(format.queryValue)"
    for field in readyFields { url += "&ready=\(field)" }
    return url
}
