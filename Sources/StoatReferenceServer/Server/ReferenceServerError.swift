/// An error of ``ReferenceServer``'s seeding and world API: the caller asked for something the data forbids,
/// or the server's rules refused it.
public struct ReferenceServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String

        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The email is already an account's.
        public static let emailTaken = Code(rawValue: "emailTaken")
        /// A user, server, channel or message named in the call does not exist.
        public static let notFound = Code(rawValue: "notFound")
        /// Stoat's rules refused it; ``ReferenceServerError/stoatError`` names the error kind a client would get.
        public static let refused = Code(rawValue: "refused")
        /// The data file could not be written.
        public static let storage = Code(rawValue: "storage")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable message.
    public var message: String
    /// The underlying error, if any.
    public var cause: (any Error)?
    /// For ``Code/refused``, the Stoat error kind the REST API answers in the same case.
    public var stoatError: StoatErrorKind?

    /// Creates an error.
    public init(code: Code, message: String, cause: (any Error)? = nil, stoatError: StoatErrorKind? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
        self.stoatError = stoatError
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
