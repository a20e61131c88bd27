public import LifelineCore

/// An error of ``StoatClient``'s own API (the REST calls it makes throw ``StoatAPIError``, passed as the
/// `cause`), in Lifeline's one error shape: `CodedError` over ``StoatClientErrorCode``.
public typealias StoatClientError = CodedError<StoatClientErrorCode>

/// What kind of failure a ``StoatClientError`` is.
public struct StoatClientErrorCode: LifelineErrorCode, RawRepresentable {
    /// The code's stable name, as printed in `--json` output.
    public var rawValue: String

    /// Creates a code from its stable name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// An events observer fell further behind than its buffer holds; it missed events (the cache did
    /// not) and should read the cache and observe again.
    public static let observerTooSlow = StoatClientErrorCode(rawValue: "observerTooSlow")
    /// The call needs a session and the client has none (READY, or after a logout).
    public static let notSignedIn = StoatClientErrorCode(rawValue: "notSignedIn")
    /// The server refused the request or could not be reached; `cause` is the
    /// ``StoatAPIError``.
    public static let requestFailed = StoatClientErrorCode(rawValue: "requestFailed")
    /// The account's store could not be read or written; `cause` says why.
    public static let storageFailed = StoatClientErrorCode(rawValue: "storageFailed")
    /// The call's arguments cannot be used (an outbox message whose idempotency key cannot name it).
    public static let invalidRequest = StoatClientErrorCode(rawValue: "invalidRequest")
    /// The outbox refused what was asked of an entry: none has that nonce, or it is in a state that does
    /// not allow it (a discard while it is being sent, a resend of one that has not failed).
    public static let outboxRefused = StoatClientErrorCode(rawValue: "outboxRefused")
    /// The server answered a page of messages that is not what was asked (out of order, outside the range
    /// asked for, of another channel, longer than the limit); it was refused and the cache left as it was.
    public static let unexpectedPage = StoatClientErrorCode(rawValue: "unexpectedPage")
}
