import Foundation

/// Why a MessagePack frame could not be read, and where.
///
/// Like ``JSONScanError`` it never reaches a caller of ``BonfireDecoder``: a frame that cannot be read is
/// ``BonfireDecoder/Outcome/undecodable(reason:)`` with this error's description as the reason.
struct MessagePackError: Error, Hashable, CustomStringConvertible {
    /// What went wrong.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A short, fixed description.
        let description: String

        /// The input ended inside a value.
        static let truncated = Code(description: "truncated")
        /// The byte 0xC1, which MessagePack never uses.
        static let invalidByte = Code(description: "invalid type byte")
        /// Arrays and maps nested deeper than ``MessagePack/maximumDepth``.
        static let tooDeep = Code(description: "nested too deeply")
        /// A map key that is neither a string nor an integer (JSON has only string keys).
        static let invalidKey = Code(description: "map key not a string or an integer")
        /// Bytes after the frame's one value.
        static let trailingBytes = Code(description: "trailing bytes")
        /// The JSON the frame stands for would be larger than the limit.
        static let tooLarge = Code(description: "too large")
    }

    /// What went wrong.
    var code: Code
    /// The byte offset where it was noticed.
    var offset: Int

    var description: String { "\(code) at byte \(offset)" }
}

/// MessagePack on Stoat's events socket (`format=msgpack`): the frames both of Stoat's events servers send,
/// read as the JSON they stand for, and the frames Lifeline sends, written.
///
/// **Hand-written**, because no Swift MessagePack package is among the packages Lifeline may depend on, and
/// because a frame comes from the network: like ``JSONScanner`` it reads with every access bounds-checked,
/// recurses at most ``maximumDepth`` levels deep, never allocates by a length the frame states (an array or
/// map that claims more elements than bytes remain is refused before anything is read), and bounds what it
/// writes by the frame-size limit.
///
/// **Reading** transcodes a frame into the JSON text it stands for, which ``BonfireDecoder`` decodes as it
/// decodes JSON frames — the fast `Ready` decoder, then `JSONDecoder` — so both formats give the same events
/// by construction (the differential test checks it on every event). A `Ready`, the one large frame, is
/// first read without transcoding by ``MessagePackReader``, which takes it only as this mapping would and
/// leaves anything else to it. The mapping: nil, booleans and
/// integers as themselves; floats as the shortest decimal that reads back to the same `Double`, a NaN or an
/// infinity as `null`; `str` and `bin` both as strings (stoatchat's `rmp_serde` writes strings as `str`,
/// the Elixir `gateway`'s `msgpack-erlang` as `bin`), their bytes escaped as JSON needs and otherwise
/// copied, so a string that is not UTF-8 is judged as in a JSON frame (refused where a field is decoded);
/// integer map keys as their
/// decimal text (as `serde_json` writes them); extension types, which neither server sends, as `null`.
///
/// **Writing** encodes the client's frames as maps whose strings are `bin`: the Elixir gateway reads
/// MessagePack with `msgpack-erlang`'s defaults, which turn a `str` into a character list that its
/// `%{"type" => _}` match does not take (so a `str`-keyed frame is closed with 1007), while bonfire's
/// `rmp_serde` reads a `bin` wherever a string belongs. Integers are written in their smallest form.
enum MessagePack {
    /// The deepest nesting of arrays and maps read, as ``JSONScanner/maximumDepth``.
    static let maximumDepth = 128

    // MARK: Reading

    /// The JSON text `bytes` stands for (one MessagePack value, nothing after it).
    ///
    /// - Parameters:
    ///   - bytes: The frame.
    ///   - maximumSize: The most JSON bytes written; beyond them the frame is refused as ``MessagePackError/Code/tooLarge``.
    static func json(from bytes: UnsafeRawBufferPointer, maximumSize: Int) throws(MessagePackError) -> [UInt8] {
        var reader = Transcoder(bytes: bytes, limit: maximumSize)
        try reader.value(depth: 0)
        guard reader.offset == bytes.count else { throw MessagePackError(code: .trailingBytes, offset: reader.offset) }
        return reader.output
    }

    /// The JSON text `data` stands for (see ``json(from:maximumSize:)``).
    static func json(from data: Data, maximumSize: Int) throws(MessagePackError) -> [UInt8] {
        try data.withUnsafeBytes { raw in
            Result { () throws(MessagePackError) -> [UInt8] in try json(from: raw, maximumSize: maximumSize) }
        }.get()
    }

    /// Reads MessagePack and writes JSON in one pass.
    private struct Transcoder {
        /// Where the next byte is read.
        private var cursor: ByteCursor<MessagePackError>
        let limit: Int
        private var bytes: UnsafeRawBufferPointer {
            @inline(__always) get { cursor.bytes }
        }
        /// The offset of the next byte to read.
        private(set) var offset: Int {
            @inline(__always) get { cursor.offset }
            @inline(__always) set { cursor.offset = newValue }
        }
        var output: [UInt8] = []

        init(bytes: UnsafeRawBufferPointer, limit: Int) {
            cursor = ByteCursor(bytes)
            self.limit = limit
            // JSON is rarely more than a third longer than the MessagePack it stands for; the frame's own
            // length (bounded by the frame limit) is what is trusted here, never a length it states.
            output.reserveCapacity(min(limit, bytes.count + bytes.count / 3 + 16))
        }

        private func error(_ code: MessagePackError.Code) -> MessagePackError {
            MessagePackError(code: code, offset: offset)
        }

        /// A length stated by the frame, checked against the bytes left: each of `count` items takes at
        /// least `itemSize` bytes, so a count beyond what remains is refused before it is used.
        @inline(__always)
        private func checked(_ count: UInt64, itemSize: Int) throws(MessagePackError) -> Int {
            let remaining = UInt64(bytes.count - offset)
            guard count <= remaining / UInt64(itemSize) else { throw error(.truncated) }
            return Int(count)
        }

        @inline(__always)
        private mutating func write(_ byte: UInt8) throws(MessagePackError) {
            guard output.count < limit else { throw error(.tooLarge) }
            output.append(byte)
        }

        private mutating func write(_ text: StaticString) throws(MessagePackError) {
            guard limit - output.count >= text.utf8CodeUnitCount else { throw error(.tooLarge) }
            output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        private mutating func write(decimal text: String) throws(MessagePackError) {
            guard limit - output.count >= text.utf8.count else { throw error(.tooLarge) }
            output.append(contentsOf: text.utf8)
        }

        /// Reads one value and writes its JSON.
        mutating func value(depth: Int) throws(MessagePackError) {
            let type = try cursor.byte()
            switch type {
            case 0x00...0x7F: try write(decimal: String(type))
            case 0x80...0x8F: try map(count: Int(type & 0x0F), depth: depth)
            case 0x90...0x9F: try array(count: Int(type & 0x0F), depth: depth)
            case 0xA0...0xBF: try string(count: Int(type & 0x1F))
            case 0xC0: try write("null")
            case 0xC1: throw MessagePackError(code: .invalidByte, offset: offset - 1)
            case 0xC2: try write("false")
            case 0xC3: try write("true")
            case 0xC4, 0xD9: try string(count: try checked(try cursor.unsigned(1), itemSize: 1))
            case 0xC5, 0xDA: try string(count: try checked(try cursor.unsigned(2), itemSize: 1))
            case 0xC6, 0xDB: try string(count: try checked(try cursor.unsigned(4), itemSize: 1))
            case 0xC7: try skipExtension(length: Int(try cursor.unsigned(1)))
            case 0xC8: try skipExtension(length: Int(try cursor.unsigned(2)))
            case 0xC9: try skipExtension(length: Int(try cursor.unsigned(4)))
            case 0xCA:
                // A float32 as its own shortest decimal, as serde_json writes an `f32`.
                let value = Float(bitPattern: UInt32(try cursor.unsigned(4)))
                try value.isFinite ? write(decimal: value.description) : write("null")
            case 0xCB:
                let value = Double(bitPattern: try cursor.unsigned(8))
                try value.isFinite ? write(decimal: value.description) : write("null")
            case 0xCC: try write(decimal: String(try cursor.unsigned(1)))
            case 0xCD: try write(decimal: String(try cursor.unsigned(2)))
            case 0xCE: try write(decimal: String(try cursor.unsigned(4)))
            case 0xCF: try write(decimal: String(try cursor.unsigned(8)))
            case 0xD0: try write(decimal: String(Int8(truncatingIfNeeded: try cursor.unsigned(1))))
            case 0xD1: try write(decimal: String(Int16(truncatingIfNeeded: try cursor.unsigned(2))))
            case 0xD2: try write(decimal: String(Int32(truncatingIfNeeded: try cursor.unsigned(4))))
            case 0xD3: try write(decimal: String(Int64(bitPattern: try cursor.unsigned(8))))
            case 0xD4: try skipExtension(length: 1)
            case 0xD5: try skipExtension(length: 2)
            case 0xD6: try skipExtension(length: 4)
            case 0xD7: try skipExtension(length: 8)
            case 0xD8: try skipExtension(length: 16)
            case 0xDC: try array(count: try checked(try cursor.unsigned(2), itemSize: 1), depth: depth)
            case 0xDD: try array(count: try checked(try cursor.unsigned(4), itemSize: 1), depth: depth)
            case 0xDE: try map(count: try checked(try cursor.unsigned(2), itemSize: 2), depth: depth)
            case 0xDF: try map(count: try checked(try cursor.unsigned(4), itemSize: 2), depth: depth)
            default: try write(decimal: String(Int8(bitPattern: type)))  // 0xE0...0xFF, negative fixint
            }
        }

        private mutating func array(count: Int, depth: Int) throws(MessagePackError) {
            guard depth < MessagePack.maximumDepth else { throw error(.tooDeep) }
            _ = try checked(UInt64(count), itemSize: 1)
            try write(UInt8(ascii: "["))
            for index in 0..<count {
                if index > 0 { try write(UInt8(ascii: ",")) }
                try value(depth: depth + 1)
            }
            try write(UInt8(ascii: "]"))
        }

        private mutating func map(count: Int, depth: Int) throws(MessagePackError) {
            guard depth < MessagePack.maximumDepth else { throw error(.tooDeep) }
            _ = try checked(UInt64(count), itemSize: 2)
            try write(UInt8(ascii: "{"))
            for index in 0..<count {
                if index > 0 { try write(UInt8(ascii: ",")) }
                try key()
                try write(UInt8(ascii: ":"))
                try value(depth: depth + 1)
            }
            try write(UInt8(ascii: "}"))
        }

        /// A map key: a string, or an integer written as its decimal text.
        private mutating func key() throws(MessagePackError) {
            let start = offset
            let type = try cursor.byte()
            switch type {
            case 0xA0...0xBF, 0xC4...0xC6, 0xD9...0xDB:
                offset = start
                try value(depth: 0)
            case 0x00...0x7F, 0xCC...0xCF, 0xD0...0xD3, 0xE0...0xFF:
                offset = start
                try write(UInt8(ascii: "\""))
                try value(depth: 0)
                try write(UInt8(ascii: "\""))
            default:
                throw MessagePackError(code: .invalidKey, offset: start)
            }
        }

        /// A string's bytes as a JSON string: `"`, `\` and control characters escaped, the rest copied.
        private mutating func string(count: Int) throws(MessagePackError) {
            guard bytes.count - offset >= count else { throw error(.truncated) }
            // Room for the quotes and every byte copied; an escape checks for its own extra bytes.
            guard limit - output.count >= count + 2 else { throw error(.tooLarge) }
            output.append(UInt8(ascii: "\""))
            let end = offset + count
            var run = offset
            while offset < end {
                let byte = bytes[offset]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                    offset += 1
                    continue
                }
                // The run so far, this byte's escape (at most six bytes), the rest and the closing quote.
                guard limit - output.count >= (offset - run) + 6 + (end - offset) else { throw error(.tooLarge) }
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[run..<offset]))
                escape(byte)
                offset += 1
                run = offset
            }
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[run..<end]))
            try write(UInt8(ascii: "\""))
        }

        private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

        private mutating func escape(_ byte: UInt8) {
            output.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            default:
                output.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                output.append(Self.hexDigits[Int(byte >> 4)])
                output.append(Self.hexDigits[Int(byte & 0x0F)])
            }
        }

        /// An extension value (its type byte and `length` bytes of data) as `null`.
        private mutating func skipExtension(length: Int) throws(MessagePackError) {
            guard bytes.count - offset >= length + 1 else { throw error(.truncated) }
            offset += length + 1
            try write("null")
        }
    }

    // MARK: Writing

    /// Writes the client's frames: maps with `bin` strings (see the type's discussion).
    struct Writer {
        /// The bytes written so far.
        private(set) var bytes: [UInt8] = []

        /// A map header for `count` entries.
        mutating func map(count: Int) {
            precondition(count >= 0 && count <= 0xFFFF, "a frame's map has \(count) entries")
            if count < 16 {
                bytes.append(0x80 | UInt8(count))
            } else {
                bytes.append(0xDE)
                append(UInt64(count), size: 2)
            }
        }

        /// A string, as `bin` (8, 16 or 32).
        mutating func string(_ value: String) {
            let utf8 = value.utf8
            let count = utf8.count
            if count <= 0xFF {
                bytes.append(0xC4)
                bytes.append(UInt8(count))
            } else if count <= 0xFFFF {
                bytes.append(0xC5)
                append(UInt64(count), size: 2)
            } else {
                precondition(count <= 0xFFFF_FFFF, "a \(count)-byte string in a frame")
                bytes.append(0xC6)
                append(UInt64(count), size: 4)
            }
            bytes.append(contentsOf: utf8)
        }

        /// An integer in its smallest form.
        mutating func integer(_ value: Int64) {
            switch value {
            case 0...0x7F: bytes.append(UInt8(value))
            case -32..<0: bytes.append(UInt8(bitPattern: Int8(value)))
            case 0x80...0xFF:
                bytes.append(0xCC)
                bytes.append(UInt8(value))
            case 0x100...0xFFFF:
                bytes.append(0xCD)
                append(UInt64(value), size: 2)
            case 0x1_0000...0xFFFF_FFFF:
                bytes.append(0xCE)
                append(UInt64(value), size: 4)
            case 0x1_0000_0000...:
                bytes.append(0xCF)
                append(UInt64(value), size: 8)
            case -0x80..<(-32):
                bytes.append(0xD0)
                bytes.append(UInt8(bitPattern: Int8(value)))
            case -0x8000..<(-0x80):
                bytes.append(0xD1)
                append(UInt64(UInt16(bitPattern: Int16(value))), size: 2)
            case -0x8000_0000..<(-0x8000):
                bytes.append(0xD2)
                append(UInt64(UInt32(bitPattern: Int32(value))), size: 4)
            default:
                bytes.append(0xD3)
                append(UInt64(bitPattern: value), size: 8)
            }
        }

        private mutating func append(_ value: UInt64, size: Int) {
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }
    }
}

extension BonfireClientFrame {
    /// The frame as MessagePack: a map with the `type` first, then its field, every string as `bin`.
    public var messagePack: [UInt8] {
        var writer = MessagePack.Writer()
        writer.map(count: 2)
        writer.string("type")
        switch self {
        case .authenticate(let token):
            writer.string("Authenticate")
            writer.string("token")
            writer.string(token)
        case .ping(let data):
            writer.string("Ping")
            writer.string("data")
            writer.integer(data)
        case .pong(let data):
            writer.string("Pong")
            writer.string("data")
            writer.integer(data)
        case .subscribe(let server):
            writer.string("Subscribe")
            writer.string("server_id")
            writer.string(server)
        case .beginTyping(let channel):
            writer.string("BeginTyping")
            writer.string("channel")
            writer.string(channel)
        case .endTyping(let channel):
            writer.string("EndTyping")
            writer.string("channel")
            writer.string(channel)
        }
        return writer.bytes
    }
}
