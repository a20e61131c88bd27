/// How an operation ended, as `OperationFinished`'s `result` says it (Lifeline's extension, not stoatchat's).
public struct OperationResult: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The wire value: `approved`, `rejected` or `timeout`.
    public let rawValue: String

    /// The user approved it.
    public static let approved = OperationResult(rawValue: "approved")
    /// The user rejected it.
    public static let rejected = OperationResult(rawValue: "rejected")
    /// It reached its expiry in the server's clock.
    public static let timeout = OperationResult(rawValue: "timeout")

    /// The wire value.
    public var description: String { rawValue }

    /// Creates a result from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Decodes the wire value.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the wire value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
