public import LifelineCore

/// An error of ``StoatClient``'s own API (the REST calls it makes throw ``StoatAPIError``, passed as the
/// ``cause``).
public struct StoatClientError: LifelineError, Sendable {
    /// What kind of failure this is.
    public struct Code: LifelineErrorCode, RawRepresentable {
        /// The code's stable name.
        public var rawValue: String

        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// An events observer fell further behind than its buffer holds; it missed events (the cache did
        /// not) and should read the cache and observe again.
        public static let observerTooSlow = Code(rawValue: "observerTooSlow")
        /// The call needs a session and the client has none (READY, or after a logout).
        public static let notSignedIn = Code(rawValue: "notSignedIn")
        /// The server refused the request or could not be reached; ``StoatClientError/cause`` is the
        /// ``StoatAPIError``.
        public static let requestFailed = Code(rawValue: "requestFailed")
        /// The account's store could not be read or written; ``StoatClientError/cause`` says why.
        public static let storageFailed = Code(rawValue: "storageFailed")
        /// The call's arguments cannot be used (an outbox message whose idempotency key cannot name it).
        public static let invalidRequest = Code(rawValue: "invalidRequest")
        /// The outbox refused what was asked of an entry: none has that nonce, or it is in a state that does
        /// not allow it (a discard while it is being sent, a resend of one that has not failed).
        public static let outboxRefused = Code(rawValue: "outboxRefused")
        /// The server answered a page of messages that is not what was asked (out of order, outside the range
        /// asked for, of another channel, longer than the limit); it was refused and the cache left as it was.
        public static let unexpectedPage = Code(rawValue: "unexpectedPage")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence for developers; never contains a token or a password.
    public var message: String
    /// The error that caused this one, if any.
    public var cause: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: A sentence for developers; it must not contain a secret.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}
