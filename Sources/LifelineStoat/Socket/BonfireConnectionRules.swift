import Foundation
import LifelineCore
import NIOCore

// The Stoat rules an events connection follows whatever carries its frames, shared by `StoatConnection`
// (WSClient) and `NIOStoatConnection` (NIO channel handlers) until the second replaces the first.
// Note for the lead: `StoatConnection.swift` still has its own copies of these (inline, private); when the
// NIO connection is wired in, they go with it, and any change made to them meanwhile (close codes, `detail`,
// the MessagePack format) belongs here.

extension BonfireError {
    /// How an `Error` event ends the connection: one that says the session cannot authenticate
    /// (`InvalidSession`, `InvalidToken`, `NotAuthenticated`, `UnverifiedAccount`) is permanent — and the
    /// lifecycle confirms an `InvalidSession` before it believes it; every other is a TEMPORARY_FAILURE.
    var connectionEnd: ConnectionEnd {
        guard isAuthenticationError else {
            return .temporary(TemporaryFailureCause(code: .serverError, message: kind))
        }
        let code: PermanentFailureReason.Code = kind == "InvalidSession" ? .invalidSession : .authenticationFailed
        return .permanent(PermanentFailureReason(code: code, message: kind))
    }
}

extension BonfireClientFrame {
    /// The frame that plays a significant event. Stoat answers none of them, so success is the frame written.
    ///
    /// - Throws: ``StoatConnectionError/Code/unsupportedEvent`` for a kind Stoat has no frame for.
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
    /// Decodes a message straight from the bytes it arrived in: no `String`, no second copy.
    func decode(_ buffer: ByteBuffer) -> Outcome {
        buffer.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return decode(Data()) }
            return decode(
                Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
        }
    }
}

/// The events socket's URL with the query Stoat expects (`version=1&format=json`, and one `ready` per field
/// asked for); never the token.
func eventsSocketURL(_ base: String, readyFields: [String]) -> String {
    var url = base
    url += url.contains("?") ? "&" : "?"
    url += "version=1&format=json"
    for field in readyFields { url += "&ready=\(field)" }
    return url
}
