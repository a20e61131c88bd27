/// Lifeline's one error shape, as grpc-swift's `RPCError`: a ``Code`` from an open set, a message for people,
/// and the error that caused it. Every error type a Lifeline library throws or reports adopts it, so an app reads
/// any of them the same way and switches on the code, never on the message (see <doc:ErrorHandling>).
///
/// Every Lifeline error type is ``CodedError`` over its own code type, and declares nothing but its codes and,
/// when it carries facts of its own (an HTTP status, a close frame's code, a server's words), a details type
/// (``LifelineErrorCode/Details``). The one direct adopter is ``SessionFailure``, which is not an error with a
/// code of its own but the sum of the two coded errors the lifecycle takes an edge on. Every error gets
/// `code: message` as its ``description`` and equality and hashing by code and message
/// (``hasSameCodeAndMessage(as:)``): the ``cause`` is never compared, since an arbitrary error cannot be.
public protocol LifelineError: Error, CustomStringConvertible {
    /// The type of the error's code: a string-backed struct with a static member per known code, open so
    /// that a protocol or a later version adds codes without breaking an app's `switch`.
    associatedtype Code: LifelineErrorCode

    /// What kind of error this is.
    var code: Code { get }
    /// A sentence for people; never contains a token, a password or a stored value.
    var message: String { get }
    /// The error that caused this one, if any.
    var cause: (any Error)? { get }
}

/// The code of a ``LifelineError``: its stable name is its `rawValue`, which `--json` output, logs and metrics
/// print as it is, so renaming a static member never changes what other programs read.
///
/// Most codes are `RawRepresentable` structs with a static member per known code; ``SessionFailure/Code``
/// is an enum over the two it joins.
public protocol LifelineErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// What a ``CodedError`` of this code carries beside its code, message and cause (an HTTP status, a
    /// support link), as one struct whose properties the error reads as its own; ``NoErrorDetails`` for an
    /// error that carries nothing more.
    associatedtype Details: Sendable = NoErrorDetails

    /// The code's stable name, as printed in `--json` output.
    var rawValue: String { get }

    /// What a ``CodedError``'s `description` adds after `code: message` from its details (a server's own
    /// words, in parentheses); nothing by default.
    ///
    /// - Parameter details: The error's details.
    static func describing(_ details: Details) -> String
}

extension LifelineErrorCode {
    /// The code's stable name.
    public var description: String { rawValue }

    /// Nothing: by default the details are not part of the description.
    public static func describing(_ details: Details) -> String { "" }
}

extension LifelineError {
    /// `code: message`.
    public var description: String { "\(code): \(message)" }

    /// Whether the two errors have the same code and message: the equality of every Lifeline error (its
    /// ``cause`` is not compared).
    ///
    /// - Parameter other: The error to compare with.
    public func hasSameCodeAndMessage(as other: Self) -> Bool {
        code == other.code && message == other.message
    }

    /// Whether `error` has the code `code`: `case StoreError.Code.closed` in a `switch` over an error.
    ///
    /// - Parameters:
    ///   - code: The code to look for.
    ///   - error: The error.
    public static func ~= (code: Code, error: Self) -> Bool { error.code == code }
}

extension LifelineError where Self: Hashable {
    /// Errors are equal when their codes and messages are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.hasSameCodeAndMessage(as: rhs) }

    /// Hashes the code and the message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
