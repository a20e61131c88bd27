/// Lifeline's one error shape as a type: a code of type `Code`, a message for people, and the error that
/// caused it. An error type that carries nothing else is this struct over its own code type
/// (`public typealias StoreError = CodedError<StoreErrorCode>`), so it declares only its codes; the
/// storage, the initialiser, equality, `description` and the flattening of a cause are written once, here.
///
/// ```swift
/// public typealias StoreError = CodedError<StoreErrorCode>
///
/// public struct StoreErrorCode: LifelineErrorCode, RawRepresentable {
///     public let rawValue: String
///     public init(rawValue: String) { self.rawValue = rawValue }
///
///     public static let closed = StoreErrorCode(rawValue: "closed")
/// }
/// ```
///
/// An error that carries facts of its own beside the three (an HTTP status, a support link) names them in a
/// details type its code declares (``LifelineErrorCode/Details``); the error holds them in ``details`` and
/// reads and writes each as its own property (`error.status`), so the type still declares only its codes and
/// their details:
///
/// ```swift
/// public typealias PasswordVerificationFailure = CodedError<PasswordVerificationCode>
///
/// public struct PasswordVerificationCode: LifelineErrorCode, RawRepresentable {
///     public typealias Details = PasswordVerificationDetails  // supportURL, standing
///     …
/// }
/// ```
///
/// A cause of the same type with the same code is flattened, as grpc-swift's `RPCError` does: the new error
/// takes the cause's own cause and both messages (`outer inner`), so one failure is carried once however
/// many layers pass it on. Errors are equal when their codes and messages are; the cause is held in one
/// reference (the values that carry an error stay cheap to copy) and never compared.
@dynamicMemberLookup
public struct CodedError<CodeType: LifelineErrorCode>: LifelineError, Sendable, Hashable {
    /// The type of the error's code, so that `StoreError.Code` names `StoreErrorCode`.
    public typealias Code = CodeType

    /// What kind of error this is.
    public var code: Code

    /// A sentence for people; never contains a token, a password or a stored value.
    public var message: String

    /// The facts the error carries beside its code, message and cause (``LifelineErrorCode/Details``), each
    /// also read and written as a property of the error itself. Not part of equality.
    public var details: Code.Details

    /// The error that caused this one, if any. Not part of equality.
    public var cause: (any Error)? {
        get { causeBox?.error }
        set { causeBox = newValue.map(ErrorBox.init) }
    }

    /// The cause, boxed: one reference instead of an existential.
    private var causeBox: ErrorBox?

    /// Creates an error with details. A `cause` of this type with the same code is flattened into it: the
    /// error keeps `message` followed by the cause's message (the cause's alone when it starts with
    /// `message`), and the cause's own cause; `details` are this error's.
    ///
    /// - Parameters:
    ///   - code: What kind of error this is.
    ///   - message: A sentence for people; must never contain a token, a password or a stored value.
    ///   - details: The facts the error carries beside its code, message and cause.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, details: Code.Details, cause: (any Error)? = nil) {
        self.code = code
        self.details = details
        if let inner = cause as? Self, inner.code == code {
            // Words the cause already starts with are not repeated.
            self.message = inner.message.hasPrefix(message) ? inner.message : message + " " + inner.message
            self.causeBox = inner.causeBox
        } else {
            self.message = message
            self.causeBox = cause.map(ErrorBox.init)
        }
    }

    /// `code: message`, and what the code's ``LifelineErrorCode/describing(_:)`` adds from the details.
    public var description: String { "\(code): \(message)" + Code.describing(details) }

    /// A fact of the error's ``details``, as a property of the error (`error.status`).
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Code.Details, Value>) -> Value {
        get { details[keyPath: keyPath] }
        set { details[keyPath: keyPath] = newValue }
    }
}

extension CodedError where Code.Details == NoErrorDetails {
    /// Creates an error. A `cause` of this type with the same code is flattened into it: the error keeps
    /// `message` followed by the cause's message (the cause's alone when it starts with `message`), and the
    /// cause's own cause.
    ///
    /// - Parameters:
    ///   - code: What kind of error this is.
    ///   - message: A sentence for people; must never contain a token, a password or a stored value.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.init(code: code, message: message, details: NoErrorDetails(), cause: cause)
    }
}

/// The details of an error that carries nothing beside its code, message and cause: the default
/// ``LifelineErrorCode/Details``.
public struct NoErrorDetails: Sendable, Hashable {
    /// Creates the empty details.
    public init() {}
}
