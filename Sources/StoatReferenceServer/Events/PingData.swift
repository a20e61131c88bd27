/// The data of a Bonfire `Ping`, echoed in its `Pong`: a non-negative integer or an array of bytes, as Stoat
/// accepts. Any other data gets no `Pong`.
public enum PingData: Sendable, Equatable {
    /// A non-negative integer (clients send milliseconds).
    case number(UInt64)
    /// An array of bytes.
    case bytes([UInt8])

    /// Reads `data` as Stoat does; nil when it is neither an array of bytes nor a non-negative integer.
    static func validated(_ data: JSONValue?) -> PingData? {
        switch data {
        case .integer(let value) where value >= 0:
            return .number(UInt64(value))
        case .unsigned(let value):
            return .number(value)
        case .array(let elements):
            var bytes: [UInt8] = []
            for element in elements {
                guard case .integer(let value) = element, let byte = UInt8(exactly: value) else { return nil }
                bytes.append(byte)
            }
            return .bytes(bytes)
        default:
            return nil
        }
    }

    var wire: Wire {
        switch self {
        case .number(let value): .uint(value)
        case .bytes(let bytes): .array(bytes.map { .uint(UInt64($0)) })
        }
    }
}
