/// Why a connection failed in a way that may heal by itself: the payload of TEMPORARY_FAILURE.
///
/// Lifeline's one error shape (``CodedError``): a code from an open set, ``TemporaryFailureCode`` (so protocols
/// and later versions can add causes without breaking a `switch` in an app), a message for people, and the
/// error that caused it.
/// The code survives to the interface and to `--json` output as a field, never as a string prefix.
public typealias TemporaryFailureCause = CodedError<TemporaryFailureCode>

/// What kind of temporary failure a ``TemporaryFailureCause`` is: its stable name is the `rawValue`, which
/// `--json` output prints as it is.
public struct TemporaryFailureCode: LifelineErrorCode, RawRepresentable {
    /// The code's stable name, as printed in `--json` output.
    public var rawValue: String

    /// Creates a code from its stable name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The socket closed or was lost after it had opened (the specification's SOCKET_DROPPED).
    public static let socketDropped = TemporaryFailureCode(rawValue: "socketDropped")
    /// The socket could not be opened: refused, unreachable, a TLS failure other than the certificate's, or
    /// the upgrade was declined.
    public static let connectFailed = TemporaryFailureCode(rawValue: "connectFailed")
    /// The server's certificate is not issued by an authority the client trusts.
    public static let certificateUntrusted = TemporaryFailureCode(rawValue: "certificateUntrusted")
    /// The server's certificate is for another name than the host connected to.
    public static let certificateNameMismatch = TemporaryFailureCode(rawValue: "certificateNameMismatch")
    /// The server's certificate has expired, or is not valid yet.
    public static let certificateExpired = TemporaryFailureCode(rawValue: "certificateExpired")
    /// No message arrived within the connect timeout after starting the connection.
    public static let connectTimeout = TemporaryFailureCode(rawValue: "connectTimeout")
    /// The initial data did not arrive within its deadline after authentication (extension).
    public static let readyTimeout = TemporaryFailureCode(rawValue: "readyTimeout")
    /// No Pong answered a heartbeat Ping in time.
    public static let heartbeatTimeout = TemporaryFailureCode(rawValue: "heartbeatTimeout")
    /// The server reported an error that does not invalidate the session.
    public static let serverError = TemporaryFailureCode(rawValue: "serverError")
    /// A request (for example the onboarding check) failed on the network.
    public static let requestFailed = TemporaryFailureCode(rawValue: "requestFailed")
    /// The peer sent something the protocol does not allow, so the connection was dropped.
    public static let protocolViolation = TemporaryFailureCode(rawValue: "protocolViolation")
    /// The server said the session is invalid, but a check of the session did not confirm it: the check
    /// found it valid, or could not reach a definite answer. Stoat says `InvalidSession` also when its
    /// database fails, so only a confirmed answer logs the user out (see the lifecycle's decisions).
    public static let unconfirmedInvalidSession = TemporaryFailureCode(rawValue: "unconfirmedInvalidSession")
    /// The server refused a frame the client sent and ended the connection (Stoat's new events server,
    /// `stoatchat/gateway`, answers a frame it does not take with `InvalidPayload` and closes with 1007).
    /// The replay plan blames the last significant event played on that connection
    /// (``ReplayPlan/disconnected(after:)``).
    public static let frameRefused = TemporaryFailureCode(rawValue: "frameRefused")
    /// The socket answered its heartbeat but did not deliver the event of a message the server had stored
    /// within the delivery deadline (``DeliveryWatchPolicy``): it is deaf, and a reconnect is the cure.
    public static let deliveryStalled = TemporaryFailureCode(rawValue: "deliveryStalled")
    /// The events server sent a second `Ready` on the open socket: Stoat's gateway restarted the session
    /// process behind it and lost the events published meanwhile. The client leaves the socket and
    /// reconnects, so that the catch-up after it finds what was lost (a gap is never silent).
    public static let sessionRestarted = TemporaryFailureCode(rawValue: "sessionRestarted")
    /// The device woke from a suspend and the socket did not answer the check made at once (a `Ping`) within
    /// ``SessionMachine/wakeCheckTimeout``, or could not be checked: it died while the device slept.
    public static let wakeCheckFailed = TemporaryFailureCode(rawValue: "wakeCheckFailed")
}

extension TemporaryFailureCause {
    /// A dropped socket: the specification's SOCKET_DROPPED.
    public static var socketDropped: TemporaryFailureCause {
        TemporaryFailureCause(code: .socketDropped, message: "the socket closed")
    }
}
