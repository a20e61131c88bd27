import LifelineCore

/// Why a ``WebSocketTransport`` ended, in Lifeline's one error shape: `CodedError` over
/// ``WebSocketTransportEndCode``, a message for people, and what the peer said or did
/// (``WebSocketTransportEndDetails``: the HTTP status of a refused upgrade, the close frame's code and reason),
/// read as the end's own properties.
///
/// A transport reports exactly one end, once its channel is closed: the first reason recorded wins, so an
/// abort after a refused upgrade still reports the refusal.
package typealias WebSocketTransportEnd = CodedError<WebSocketTransportEndCode>

/// What kind of end a ``WebSocketTransportEnd`` is.
package struct WebSocketTransportEndCode: LifelineErrorCode, RawRepresentable {
    /// What the peer said or did.
    package typealias Details = WebSocketTransportEndDetails

    /// The code's stable name.
    package var rawValue: String

    /// Creates a code from its stable name.
    package init(rawValue: String) { self.rawValue = rawValue }

    /// The connection could not be made: the name did not resolve, the peer refused or was unreachable,
    /// TLS failed (a certificate not trusted, a host name it does not name), or the peer closed before
    /// answering the upgrade.
    package static let connectFailed = Self(rawValue: "connectFailed")
    /// The server answered the upgrade with a status other than 101 (``WebSocketTransportEndDetails/status``).
    package static let upgradeRefused = Self(rawValue: "upgradeRefused")
    /// The server answered 101 but not as RFC 6455 asks: a wrong `Sec-WebSocket-Accept`, or no
    /// `Upgrade: websocket`.
    package static let upgradeInvalid = Self(rawValue: "upgradeInvalid")
    /// The peer sent a close frame (``WebSocketTransportEndDetails/closeCode``,
    /// ``WebSocketTransportEndDetails/closeReason``).
    package static let closed = Self(rawValue: "closed")
    /// The connection ended without a close frame: the peer closed it, reset it, or reading failed.
    package static let dropped = Self(rawValue: "dropped")
    /// A message larger than the limit began; it was refused before it was held.
    package static let messageTooLarge = Self(rawValue: "messageTooLarge")
    /// The peer broke the WebSocket protocol (a masked or reserved frame, a continuation without a
    /// message, a fragmented control frame…).
    package static let protocolViolation = Self(rawValue: "protocolViolation")
    /// This side closed the socket (``WebSocketTransport/abort(because:)`` or ``WebSocketTransport/close()``).
    package static let aborted = Self(rawValue: "aborted")
}

/// What a ``WebSocketTransportEnd`` carries beside its code, message and cause.
package struct WebSocketTransportEndDetails: Sendable, Hashable {
    /// Whether the upgrade had succeeded: an end before it means the socket never opened.
    package var wasOpen: Bool
    /// The status of a refused upgrade.
    package var status: Int?
    /// The code of the peer's close frame, if it sent one with a code.
    package var closeCode: UInt16?
    /// The reason of the peer's close frame, if it sent one (UTF-8, as sent; invalid bytes replaced).
    package var closeReason: String?
}

extension CodedError where Code == WebSocketTransportEndCode {
    /// Creates an end.
    package init(
        code: Code, message: String, wasOpen: Bool, status: Int? = nil, closeCode: UInt16? = nil,
        closeReason: String? = nil, cause: (any Error)? = nil
    ) {
        self.init(
            code: code, message: message,
            details: WebSocketTransportEndDetails(
                wasOpen: wasOpen, status: status, closeCode: closeCode, closeReason: closeReason),
            cause: cause)
    }
}
