#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A JSON value in the order Stoat writes it: objects keep their keys in the order given, as serde does for
/// stoatchat's structs, so that every frame and body reads field for field like the real server's.
///
/// Requests are read with ``JSONValue``; everything the server writes is built as a `Wire` and serialised by
/// ``text`` or ``bytes``, which escape strings as serde_json does (quote, backslash and control characters;
/// `/` and non-ASCII are written as they are).
indirect enum Wire: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    /// A timestamp (stoatchat's `iso8601_timestamp::Timestamp`): its ISO 8601 text in JSON, and in bonfire's
    /// MessagePack the milliseconds since the Unix epoch (the crate writes an `i64` for a serializer that is
    /// not human-readable, as `rmp_serde`'s is not).
    case timestamp(Date)
    case array([Wire])
    case object([Field])

    /// One member of an object.
    struct Field: Sendable, Equatable {
        var key: String
        var value: Wire
    }

    /// An object from `(key, value)` pairs; pairs whose value is nil are left out, as
    /// `skip_serializing_if = "Option::is_none"` does.
    static func object(_ pairs: KeyValuePairs<String, Wire?>) -> Wire {
        .object(pairs.compactMap { key, value in value.map { Field(key: key, value: $0) } })
    }

    /// An integer.
    static func integer(_ value: Int) -> Wire { .int(Int64(value)) }

    /// A string, or nil when `value` is nil (left out of its object).
    static func str(_ value: String?) -> Wire? { value.map { .string($0) } }

    /// An array of strings.
    static func strings(_ values: [String]) -> Wire { .array(values.map { .string($0) }) }

    /// The serialised JSON text.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The serialised JSON bytes.
    var bytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output)
        return output
    }

    /// Appends the serialised JSON to `output`.
    func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): output.append(contentsOf: String(value).utf8)
        case .uint(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value):
            if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
                output.append(contentsOf: String(Int64(value)).utf8)
                output.append(contentsOf: ".0".utf8)
            } else if value.isFinite {
                output.append(contentsOf: String(value).utf8)
            } else {
                output.append(contentsOf: "null".utf8)
            }
        case .string(let value): Self.writeString(value, to: &output)
        case .timestamp(let date): Self.writeString(StoatTimestamp.string(date), to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let fields):
            output.append(UInt8(ascii: "{"))
            for (index, field) in fields.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(field.key, to: &output)
                output.append(UInt8(ascii: ":"))
                field.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Writes `value` as a JSON string literal, escaping as serde_json does.
    static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The JSON string literal for `value`.
    static func quoted(_ value: String) -> String {
        var output: [UInt8] = []
        writeString(value, to: &output)
        return String(decoding: output, as: UTF8.self)
    }
}

/// A value the server writes on the wire, in Stoat's field order.
protocol WireEncodable {
    /// The value as Stoat writes it.
    var wire: Wire { get }
}

extension Wire {
    /// The wire value of each element.
    static func list(_ values: [some WireEncodable]) -> Wire { .array(values.map(\.wire)) }
}
