import LifelineCore

/// Why a ``WebSocketTransport`` ended, in Lifeline's one error shape: a ``Code`` from an open set, a message
/// for people, and what the peer said or did (the HTTP status of a refused upgrade, the close frame's code
/// and reason).
///
/// A transport reports exactly one end, once its channel is closed: the first reason recorded wins, so an
/// abort after a refused upgrade still reports the refusal.
package struct WebSocketTransportEnd: LifelineError, Sendable, Hashable {
    /// What kind of end this is.
    package struct Code: LifelineErrorCode, RawRepresentable {
        /// The code's stable name.
        package var rawValue: String

        /// Creates a code from its stable name.
        package init(rawValue: String) { self.rawValue = rawValue }

        /// The connection could not be made: the name did not resolve, the peer refused or was unreachable,
        /// TLS failed (a certificate not trusted, a host name it does not name), or the peer closed before
        /// answering the upgrade.
        package static let connectFailed = Code(rawValue: "connectFailed")
        /// The server answered the upgrade with a status other than 101 (``WebSocketTransportEnd/status``).
        package static let upgradeRefused = Code(rawValue: "upgradeRefused")
        /// The server answered 101 but not as RFC 6455 asks: a wrong `Sec-WebSocket-Accept`, or no
        /// `Upgrade: websocket`.
        package static let upgradeInvalid = Code(rawValue: "upgradeInvalid")
        /// The peer sent a close frame (``WebSocketTransportEnd/closeCode``, ``WebSocketTransportEnd/closeReason``).
        package static let closed = Code(rawValue: "closed")
        /// The connection ended without a close frame: the peer closed it, reset it, or reading failed.
        package static let dropped = Code(rawValue: "dropped")
        /// A message larger than the limit began; it was refused before it was held.
        package static let messageTooLarge = Code(rawValue: "messageTooLarge")
        /// The peer broke the WebSocket protocol (a masked or reserved frame, a continuation without a
        /// message, a fragmented control frame…).
        package static let protocolViolation = Code(rawValue: "protocolViolation")
        /// This side closed the socket (``WebSocketTransport/abort(because:)`` or ``WebSocketTransport/close()``).
        package static let aborted = Code(rawValue: "aborted")
    }

    /// What kind of end this is.
    package var code: Code
    /// What happened, for people; never a token (the URL's query carries none).
    package var message: String
    /// Whether the upgrade had succeeded: an end before it means the socket never opened.
    package var wasOpen: Bool
    /// The status of a refused upgrade.
    package var status: Int?
    /// The code of the peer's close frame, if it sent one with a code.
    package var closeCode: UInt16?
    /// The reason of the peer's close frame, if it sent one (UTF-8, as sent; invalid bytes replaced).
    package var closeReason: String?
    /// The error that caused this end, if any. Not part of equality.
    package var cause: (any Error)?

    /// Creates an end.
    package init(
        code: Code, message: String, wasOpen: Bool, status: Int? = nil, closeCode: UInt16? = nil,
        closeReason: String? = nil, cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.wasOpen = wasOpen
        self.status = status
        self.closeCode = closeCode
        self.closeReason = closeReason
        self.cause = cause
    }

    /// Ends are equal when everything but their causes is.
    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.wasOpen == rhs.wasOpen && lhs.status == rhs.status
            && lhs.closeCode == rhs.closeCode && lhs.closeReason == rhs.closeReason
    }

    /// Hashes what equality compares.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(wasOpen)
        hasher.combine(status)
        hasher.combine(closeCode)
        hasher.combine(closeReason)
    }
}
