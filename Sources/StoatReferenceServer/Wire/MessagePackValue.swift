/// A MessagePack value as a client sent it, `str` and `bin` kept apart: bonfire's `rmp_serde` reads either
/// as a string, while the Elixir gateway's `msgpack-erlang` (with its default options) reads a `str` as a
/// character list and only a `bin` as the binary its frame handler matches.
///
/// Read with every access bounds-checked, at most ``maximumDepth`` levels of nesting, and no allocation
/// sized by a length the frame states beyond the bytes it has: a client frame is at most
/// ``ReferenceServer/Configuration/maxInboundFrameSize`` bytes, and a malformed one is `nil`, never a trap.
indirect enum MessagePackValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case str([UInt8])
    case bin([UInt8])
    case array([MessagePackValue])
    case map([(MessagePackValue, MessagePackValue)])
    case `extension`(type: Int8, data: [UInt8])

    /// The deepest nesting read.
    static let maximumDepth = 64

    /// The one value of `bytes`, or nil when they are not exactly one well-formed MessagePack value.
    init?(bytes: [UInt8]) {
        var reader = Reader(bytes: bytes)
        guard let value = reader.value(depth: 0), reader.offset == bytes.count else { return nil }
        self = value
    }

    static func == (lhs: MessagePackValue, rhs: MessagePackValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.unsigned(let a), .unsigned(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.str(let a), .str(let b)), (.bin(let a), .bin(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.map(let a), .map(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.extension(let t1, let d1), .extension(let t2, let d2)): t1 == t2 && d1 == d2
        default: false
        }
    }

    /// The value as JSON reads it, as bonfire's `rmp_serde` sees it: `str` and `bin` are strings when they
    /// are UTF-8 (a `bin` that is not stays bytes, an array of numbers); map keys must be strings.
    var bonfireJSON: JSONValue? {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .integer(let value): return .integer(value)
        case .unsigned(let value): return value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsigned(value)
        case .double(let value): return .number(value)
        case .str(let bytes): return String(validating: bytes, as: UTF8.self).map { .string($0) }
        case .bin(let bytes):
            return String(validating: bytes, as: UTF8.self).map { .string($0) }
                ?? .array(bytes.map { .integer(Int64($0)) })
        case .array(let elements):
            var values: [JSONValue] = []
            for element in elements {
                guard let value = element.bonfireJSON else { return nil }
                values.append(value)
            }
            return .array(values)
        case .map(let pairs):
            var object: [String: JSONValue] = [:]
            for (key, value) in pairs {
                guard case .string(let name)? = key.bonfireJSON, let value = value.bonfireJSON else { return nil }
                if object[name] == nil { object[name] = value }
            }
            return .object(object)
        case .extension: return nil
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func unsigned(_ count: Int) -> UInt64? {
            guard bytes.count - offset >= count else { return nil }
            var value: UInt64 = 0
            for index in 0..<count { value = value << 8 | UInt64(bytes[offset + index]) }
            offset += count
            return value
        }

        mutating func take(_ count: UInt64) -> [UInt8]? {
            guard count <= UInt64(bytes.count - offset) else { return nil }
            let end = offset + Int(count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }

        /// `count` items of at least `size` bytes each fit in what remains.
        func fits(_ count: UInt64, size: UInt64) -> Bool {
            count <= UInt64(bytes.count - offset) / size
        }

        mutating func value(depth: Int) -> MessagePackValue? {
            guard let type = byte() else { return nil }
            switch type {
            case 0x00...0x7F: return .integer(Int64(type))
            case 0x80...0x8F: return map(UInt64(type & 0x0F), depth: depth)
            case 0x90...0x9F: return array(UInt64(type & 0x0F), depth: depth)
            case 0xA0...0xBF: return take(UInt64(type & 0x1F)).map { .str($0) }
            case 0xC0: return .null
            case 0xC2: return .bool(false)
            case 0xC3: return .bool(true)
            case 0xC4: return unsigned(1).flatMap { take($0) }.map { .bin($0) }
            case 0xC5: return unsigned(2).flatMap { take($0) }.map { .bin($0) }
            case 0xC6: return unsigned(4).flatMap { take($0) }.map { .bin($0) }
            case 0xC7: return unsigned(1).flatMap { extensionValue(length: $0) }
            case 0xC8: return unsigned(2).flatMap { extensionValue(length: $0) }
            case 0xC9: return unsigned(4).flatMap { extensionValue(length: $0) }
            case 0xCA: return unsigned(4).map { .double(Double(Float(bitPattern: UInt32($0)))) }
            case 0xCB: return unsigned(8).map { .double(Double(bitPattern: $0)) }
            case 0xCC: return unsigned(1).map { .integer(Int64($0)) }
            case 0xCD: return unsigned(2).map { .integer(Int64($0)) }
            case 0xCE: return unsigned(4).map { .integer(Int64($0)) }
            case 0xCF: return unsigned(8).map { $0 <= UInt64(Int64.max) ? .integer(Int64($0)) : .unsigned($0) }
            case 0xD0: return unsigned(1).map { .integer(Int64(Int8(truncatingIfNeeded: $0))) }
            case 0xD1: return unsigned(2).map { .integer(Int64(Int16(truncatingIfNeeded: $0))) }
            case 0xD2: return unsigned(4).map { .integer(Int64(Int32(truncatingIfNeeded: $0))) }
            case 0xD3: return unsigned(8).map { .integer(Int64(bitPattern: $0)) }
            case 0xD4: return extensionValue(length: 1)
            case 0xD5: return extensionValue(length: 2)
            case 0xD6: return extensionValue(length: 4)
            case 0xD7: return extensionValue(length: 8)
            case 0xD8: return extensionValue(length: 16)
            case 0xD9: return unsigned(1).flatMap { take($0) }.map { .str($0) }
            case 0xDA: return unsigned(2).flatMap { take($0) }.map { .str($0) }
            case 0xDB: return unsigned(4).flatMap { take($0) }.map { .str($0) }
            case 0xDC: return unsigned(2).flatMap { array($0, depth: depth) }
            case 0xDD: return unsigned(4).flatMap { array($0, depth: depth) }
            case 0xDE: return unsigned(2).flatMap { map($0, depth: depth) }
            case 0xDF: return unsigned(4).flatMap { map($0, depth: depth) }
            case 0xE0...0xFF: return .integer(Int64(Int8(bitPattern: type)))
            default: return nil  // 0xC1, never used
            }
        }

        mutating func extensionValue(length: UInt64) -> MessagePackValue? {
            guard let type = byte(), let data = take(length) else { return nil }
            return .extension(type: Int8(bitPattern: type), data: data)
        }

        mutating func array(_ count: UInt64, depth: Int) -> MessagePackValue? {
            guard depth < MessagePackValue.maximumDepth, fits(count, size: 1) else { return nil }
            var elements: [MessagePackValue] = []
            for _ in 0..<count {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
            }
            return .array(elements)
        }

        mutating func map(_ count: UInt64, depth: Int) -> MessagePackValue? {
            guard depth < MessagePackValue.maximumDepth, fits(count, size: 2) else { return nil }
            var pairs: [(MessagePackValue, MessagePackValue)] = []
            for _ in 0..<count {
                guard let key = value(depth: depth + 1), let value = value(depth: depth + 1) else { return nil }
                pairs.append((key, value))
            }
            return .map(pairs)
        }
    }
}

extension Wire {
    /// The value as MessagePack: as bonfire's `rmp_serde::to_vec_named` writes it (maps with their field
    /// names, strings as `str`, integers and floats in their smallest exact form), or — `binaryStrings` — as
    /// the gateway's `msgpack-erlang` writes an Elixir term with its default options (every string, map keys
    /// included, as `bin`).
    func messagePack(binaryStrings: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        writeMessagePack(to: &output, binaryStrings: binaryStrings)
        return output
    }

    /// Appends the MessagePack of the value to `output`.
    func writeMessagePack(to output: inout [UInt8], binaryStrings: Bool) {
        switch self {
        case .null: output.append(0xC0)
        case .bool(let value): output.append(value ? 0xC3 : 0xC2)
        case .int(let value): Self.writeInteger(value, to: &output)
        case .uint(let value):
            if value <= UInt64(Int64.max) {
                Self.writeInteger(Int64(value), to: &output)
            } else {
                output.append(0xCF)
                Self.writeBigEndian(value, size: 8, to: &output)
            }
        case .double(let value):
            output.append(0xCB)
            Self.writeBigEndian(value.bitPattern, size: 8, to: &output)
        case .string(let value): Self.writeString(value, binary: binaryStrings, to: &output)
        case .timestamp(let date):
            // The gateway's terms hold the text (from MongoDB and Jason); bonfire writes the milliseconds.
            if binaryStrings {
                Self.writeString(StoatTimestamp.string(date), binary: true, to: &output)
            } else {
                Self.writeInteger(StoatTimestamp.milliseconds(date), to: &output)
            }
        case .array(let elements):
            Self.writeHeader(count: elements.count, fix: 0x90, sixteen: 0xDC, thirtyTwo: 0xDD, to: &output)
            for element in elements { element.writeMessagePack(to: &output, binaryStrings: binaryStrings) }
        case .object(let fields):
            Self.writeHeader(count: fields.count, fix: 0x80, sixteen: 0xDE, thirtyTwo: 0xDF, to: &output)
            for field in fields {
                Self.writeString(field.key, binary: binaryStrings, to: &output)
                field.value.writeMessagePack(to: &output, binaryStrings: binaryStrings)
            }
        }
    }

    private static func writeHeader(count: Int, fix: UInt8, sixteen: UInt8, thirtyTwo: UInt8, to output: inout [UInt8])
    {
        if count < 16 {
            output.append(fix | UInt8(count))
        } else if count <= 0xFFFF {
            output.append(sixteen)
            writeBigEndian(UInt64(count), size: 2, to: &output)
        } else {
            output.append(thirtyTwo)
            writeBigEndian(UInt64(count), size: 4, to: &output)
        }
    }

    /// A string: `str` (fixstr, 8, 16, 32) as `rmp` writes it, or `bin` (8, 16, 32) as `msgpack-erlang` does.
    private static func writeString(_ value: String, binary: Bool, to output: inout [UInt8]) {
        let count = value.utf8.count
        if binary {
            if count <= 0xFF {
                output.append(0xC4)
                output.append(UInt8(count))
            } else if count <= 0xFFFF {
                output.append(0xC5)
                writeBigEndian(UInt64(count), size: 2, to: &output)
            } else {
                output.append(0xC6)
                writeBigEndian(UInt64(count), size: 4, to: &output)
            }
        } else if count < 32 {
            output.append(0xA0 | UInt8(count))
        } else if count <= 0xFF {
            output.append(0xD9)
            output.append(UInt8(count))
        } else if count <= 0xFFFF {
            output.append(0xDA)
            writeBigEndian(UInt64(count), size: 2, to: &output)
        } else {
            output.append(0xDB)
            writeBigEndian(UInt64(count), size: 4, to: &output)
        }
        output.append(contentsOf: value.utf8)
    }

    /// An integer in its smallest form: non-negative ones as positive fixint or `uint`, negative ones as
    /// negative fixint or `int` (`rmp::encode::write_sint`, `msgpack_packer:pack_int`).
    private static func writeInteger(_ value: Int64, to output: inout [UInt8]) {
        switch value {
        case 0..<0x80: output.append(UInt8(value))
        case 0x80...0xFF:
            output.append(0xCC)
            output.append(UInt8(value))
        case 0x100...0xFFFF:
            output.append(0xCD)
            writeBigEndian(UInt64(value), size: 2, to: &output)
        case 0x1_0000...0xFFFF_FFFF:
            output.append(0xCE)
            writeBigEndian(UInt64(value), size: 4, to: &output)
        case 0x1_0000_0000...:
            output.append(0xCF)
            writeBigEndian(UInt64(value), size: 8, to: &output)
        case -32..<0: output.append(UInt8(bitPattern: Int8(value)))
        case -0x80..<(-32):
            output.append(0xD0)
            output.append(UInt8(bitPattern: Int8(value)))
        case -0x8000..<(-0x80):
            output.append(0xD1)
            writeBigEndian(UInt64(UInt16(bitPattern: Int16(value))), size: 2, to: &output)
        case -0x8000_0000..<(-0x8000):
            output.append(0xD2)
            writeBigEndian(UInt64(UInt32(bitPattern: Int32(value))), size: 4, to: &output)
        default:
            output.append(0xD3)
            writeBigEndian(UInt64(bitPattern: value), size: 8, to: &output)
        }
    }

    private static func writeBigEndian(_ value: UInt64, size: Int, to output: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// The value with every object's keys in the order an Elixir map of up to 32 keys keeps them: sorted by
    /// their bytes. Jason and `msgpack-erlang` write the gateway's maps in that order.
    var sortedKeys: Wire {
        switch self {
        case .array(let elements): .array(elements.map(\.sortedKeys))
        case .object(let fields):
            .object(
                fields.map { Field(key: $0.key, value: $0.value.sortedKeys) }
                    .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
        default: self
        }
    }
}
