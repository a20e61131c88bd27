import Foundation

/// Why ``JSONScanner`` (or ``MessagePackReader``, which shares the fast `Ready` decoder and its errors) refused
/// its input, and where.
///
/// The scanner is stricter than Foundation's `JSONDecoder` (it follows RFC 8259 everywhere, where `JSONDecoder`
/// tolerates trailing commas, bad escapes and leading zeros in values nobody decodes), so this error never
/// reaches a caller of ``BonfireDecoder``: a frame the fast path refuses is decoded again by `JSONDecoder`, whose
/// verdict is the one reported.
struct JSONScanError: Error, Hashable, CustomStringConvertible {
    /// What went wrong.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A short, fixed description.
        let description: String

        /// A byte that cannot start or continue the value, or the input ended too early.
        static let unexpectedByte = Code(description: "unexpected byte")
        /// A control character, an invalid escape or invalid UTF-8 inside a string.
        static let invalidString = Code(description: "invalid string")
        /// A number that is not an integer literal, or does not fit the field.
        static let unsupportedNumber = Code(description: "number not a plain integer in range")
        /// Arrays and objects nested deeper than ``JSONScanner/maximumDepth``.
        static let tooDeep = Code(description: "nested too deeply")
        /// A value of the wrong JSON type (including null) for a field.
        static let wrongType = Code(description: "wrong type")
        /// A required field is absent.
        static let missingField = Code(description: "missing field")
        /// A string where a timestamp belongs is not ISO 8601.
        static let invalidTimestamp = Code(description: "invalid timestamp")
        /// Bytes after the top-level value.
        static let trailingBytes = Code(description: "trailing bytes")
        /// The frame is not a `Ready` event.
        static let notReady = Code(description: "not a Ready frame")
    }

    /// What went wrong.
    var code: Code
    /// The byte offset where it was noticed.
    var offset: Int

    var description: String { "\(code) at byte \(offset)" }
}

/// A forward-only JSON reader over UTF-8 bytes, for decoders written by hand.
///
/// It reads one value at a time where its caller expects one (``readString()``, ``readInt()``, ``enterObject()``
/// …) and validates what it skips (``skipValue()``), so a document it reads to the end is RFC 8259 JSON. It
/// never reads outside its buffer (every read is bounds-checked; the end reads as a 0 byte, which is invalid
/// everywhere), always advances, and refuses arrays and objects nested deeper than ``maximumDepth``, so its
/// recursion is bounded.
///
/// The buffer must outlive the scanner; use it inside `withUnsafeBytes`.
struct JSONScanner {
    /// The deepest nesting of arrays and objects accepted. `JSONDecoder` accepts 512; staying below it keeps
    /// the fast path from accepting a document `JSONDecoder` would refuse.
    static let maximumDepth = 128

    /// A key read by ``readKey()``: where its bytes are, for ``key(_:is:)`` and ``string(of:)``.
    struct Key {
        /// The offset of the first byte in the input, or -1 when the key had escapes (its bytes are in the
        /// scanner's key buffer).
        var start: Int
        /// The number of UTF-8 bytes of the unescaped key.
        var count: Int
        /// Whether a byte of it is not ASCII.
        var isASCII: Bool
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let end: Int
    /// The offset of the next byte to read.
    private(set) var offset = 0
    private var depth = 0
    /// Unescaped bytes of the last string or key with escapes.
    private var scratch: [UInt8] = []

    /// Creates a scanner at the start of `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.end = bytes.count
    }

    // MARK: Bytes

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    /// The next byte, or 0 at the end.
    @inline(__always)
    private func peek() -> UInt8 {
        offset < end ? bytes[offset] : 0
    }

    private func error(_ code: JSONScanError.Code) -> JSONScanError {
        JSONScanError(code: code, offset: offset)
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while offset < end {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// Whether the input from here, after whitespace, starts with `prefix`; consumes it if so.
    mutating func consume(_ prefix: StaticString) -> Bool {
        skipWhitespace()
        let count = prefix.utf8CodeUnitCount
        guard end - offset >= count, memcmp(bytes.baseAddress! + offset, prefix.utf8Start, count) == 0 else {
            return false
        }
        offset += count
        return true
    }

    /// Checks that only whitespace is left.
    mutating func finish() throws(JSONScanError) {
        skipWhitespace()
        guard offset == end else { throw error(.trailingBytes) }
    }

    // MARK: Containers

    private mutating func enter(_ opening: UInt8, closing: UInt8) throws(JSONScanError) -> Bool {
        skipWhitespace()
        guard peek() == opening else { throw error(.wrongType) }
        guard depth < Self.maximumDepth else { throw error(.tooDeep) }
        offset += 1
        depth += 1
        skipWhitespace()
        if peek() == closing {
            offset += 1
            depth -= 1
            return false
        }
        return true
    }

    private mutating func next(closing: UInt8) throws(JSONScanError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            offset += 1
            return true
        case closing:
            offset += 1
            depth -= 1
            return false
        default:
            throw error(.unexpectedByte)
        }
    }

    /// Enters an object: `true` if a member follows (read it with ``readKey()``), `false` if it was empty
    /// (and has been left).
    mutating func enterObject() throws(JSONScanError) -> Bool {
        try enter(UInt8(ascii: "{"), closing: UInt8(ascii: "}"))
    }

    /// After a member's value: `true` if another member follows, `false` at the end of the object (which has
    /// been left).
    mutating func nextMember() throws(JSONScanError) -> Bool {
        try next(closing: UInt8(ascii: "}"))
    }

    /// Enters an array: `true` if an element follows, `false` if it was empty (and has been left).
    mutating func enterArray() throws(JSONScanError) -> Bool {
        try enter(UInt8(ascii: "["), closing: UInt8(ascii: "]"))
    }

    /// After an element: `true` if another element follows, `false` at the end of the array (which has been
    /// left).
    mutating func nextElement() throws(JSONScanError) -> Bool {
        try next(closing: UInt8(ascii: "]"))
    }

    // MARK: Keys

    /// Reads a member's key and the colon after it. A key must be valid: escapes and UTF-8 are checked, as
    /// `JSONDecoder` checks every key.
    mutating func readKey() throws(JSONScanError) -> Key {
        skipWhitespace()
        guard peek() == Self.quote else { throw error(.unexpectedByte) }
        offset += 1
        let start = offset
        var high: UInt8 = 0
        skipPlainBytes()
        while true {
            let byte = peek()
            if byte == Self.quote {
                break
            } else if byte == Self.backslash {
                try unescape(from: start)
                let key = Key(start: -1, count: scratch.count, isASCII: false)
                _ = try string(of: key)  // validates the UTF-8
                return try colon(key)
            } else if byte < 0x20 {
                throw error(byte == 0 && offset == end ? .unexpectedByte : .invalidString)
            }
            high |= byte
            offset += 1
        }
        let key = Key(start: start, count: offset - start, isASCII: high < 0x80)
        offset += 1
        if !key.isASCII { _ = try string(of: key) }
        // Stoat writes the colon right after the key.
        if peek() == UInt8(ascii: ":") {
            offset += 1
            return key
        }
        return try colon(key)
    }

    private mutating func colon(_ key: Key) throws(JSONScanError) -> Key {
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw error(.unexpectedByte) }
        offset += 1
        return key
    }

    /// Whether `key` is exactly `name`.
    @inline(__always)
    func key(_ key: Key, is name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        if key.start >= 0 { return Self.equal(bytes.baseAddress! + key.start, name) }
        return scratch.withUnsafeBufferPointer { Self.equal($0.baseAddress!, name) }
    }

    /// Whether the `name.utf8CodeUnitCount` bytes at `bytes` are `name`'s. A decoder asks this of each known
    /// name of the key's length until one matches, so a mismatch is told by the first byte, without a call to
    /// `memcmp`.
    @inline(__always)
    static func equal(_ bytes: UnsafePointer<UInt8>, _ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard count > 0 else { return true }
        guard bytes.pointee == name.utf8Start.pointee else { return false }
        return memcmp(bytes + 1, name.utf8Start + 1, count - 1) == 0
    }

    /// The key as a string.
    func string(of key: Key) throws(JSONScanError) -> String {
        if key.start >= 0 {
            return try makeString(
                UnsafeBufferPointer(rebasing: bytes[key.start..<key.start + key.count]),
                isASCII: key.isASCII)
        }
        let string = scratch.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) }
        guard let string else { throw error(.invalidString) }
        return string
    }

    // MARK: Values

    /// Consumes `null` if it is next.
    mutating func readNull() -> Bool {
        skipWhitespace()
        return peek() == UInt8(ascii: "n") && consume("null")
    }

    /// Whether a number is next (after whitespace).
    mutating func nextIsNumber() -> Bool {
        skipWhitespace()
        let byte = peek()
        return byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// Consumes an empty object (`{}`, whitespace allowed inside) if it is next.
    mutating func readEmptyObject() -> Bool {
        let start = offset
        guard consume("{"), consume("}") else {
            offset = start
            return false
        }
        return true
    }

    /// Reads a string.
    mutating func readString() throws(JSONScanError) -> String {
        skipWhitespace()
        guard peek() == Self.quote else { throw error(.wrongType) }
        offset += 1
        let start = offset
        var high: UInt8 = 0
        skipPlainBytes()
        while true {
            let byte = peek()
            if byte == Self.quote {
                break
            } else if byte == Self.backslash {
                try unescape(from: start)
                let string = scratch.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) }
                guard let string else { throw error(.invalidString) }
                return string
            } else if byte < 0x20 {
                throw error(byte == 0 && offset == end ? .unexpectedByte : .invalidString)
            }
            high |= byte
            offset += 1
        }
        let string = try makeString(
            UnsafeBufferPointer(rebasing: bytes[start..<offset]), isASCII: high < 0x80)
        offset += 1
        return string
    }

    /// Advances eight bytes at a time over bytes inside a string that are plain ASCII (not `"`, `\`, below 0x20
    /// or above 0x7F), and then to the first byte that is not, when the bytes left hold a word: the caller's
    /// loop reads that byte (a closing quote, mostly) and any after it byte by byte.
    @inline(__always)
    private mutating func skipPlainBytes() {
        while end - offset >= 8 {
            // Little-endian, so that the word's lowest byte is the first in the input on any machine.
            let word = UInt64(
                littleEndian: UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self))
            let special = Self.specialBytes(word)
            guard special == 0 else {
                // The lowest flagged byte is a special one (see `specialBytes`); those below it are plain.
                offset += special.trailingZeroBitCount >> 3
                return
            }
            offset += 8
        }
    }

    /// The high bit of each byte of `word` that may be `"`, `\`, below 0x20 or above
    /// 0x7F (SWAR). The lowest byte flagged is always one of those: a subtraction borrows only out of a byte
    /// that matched, so a false flag can only sit above a true one.
    @inline(__always)
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = word &- ones &* 0x20
        let quote = (word ^ (ones &* 0x22)) &- ones
        let backslash = (word ^ (ones &* 0x5C)) &- ones
        return (control | quote | backslash | word) & highs
    }

    private func makeString(_ buffer: UnsafeBufferPointer<UInt8>, isASCII: Bool) throws(JSONScanError) -> String {
        if isASCII { return Self.asciiString(buffer) }
        guard let string = String(validating: buffer, as: UTF8.self) else { throw error(.invalidString) }
        return string
    }

    /// A string of bytes known to be ASCII, made without checking them again: `String(decoding:as:)` would
    /// check every byte for ASCII a second time, which was an eighth of the cost of each string it made.
    @inline(__always)
    static func asciiString(_ buffer: UnsafeBufferPointer<UInt8>) -> String {
        String(copying: UTF8Span(unchecked: buffer.span, isKnownASCII: true))
    }

    /// Reads the rest of a string with escapes into `scratch`, unescaped; `offset` is at the first backslash
    /// and ends after the closing quote. Unpaired surrogates are refused, as `JSONDecoder` refuses them.
    private mutating func unescape(from start: Int) throws(JSONScanError) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<offset]))
        while true {
            let byte = peek()
            if byte == Self.quote {
                offset += 1
                return
            } else if byte == Self.backslash {
                offset += 1
                let escaped = peek()
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""), Self.backslash, UInt8(ascii: "/"): scratch.append(escaped)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    var value = UInt32(try readHex4())
                    if (0xD800..<0xDC00).contains(value) {
                        guard peek() == Self.backslash, offset + 1 < end, bytes[offset + 1] == UInt8(ascii: "u") else {
                            throw error(.invalidString)
                        }
                        offset += 2
                        let low = UInt32(try readHex4())
                        guard (0xDC00..<0xE000).contains(low) else { throw error(.invalidString) }
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(value) else { throw error(.invalidString) }
                    scratch.append(contentsOf: scalar.utf8)
                default:
                    offset -= 1
                    throw error(.invalidString)
                }
            } else if byte < 0x20 {
                throw error(byte == 0 && offset == end ? .unexpectedByte : .invalidString)
            } else {
                scratch.append(byte)
                offset += 1
            }
        }
    }

    private mutating func readHex4() throws(JSONScanError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = peek()
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error(.invalidString)
            }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }

    /// Reads a boolean.
    mutating func readBool() throws(JSONScanError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: "t") where consume("true"): return true
        case UInt8(ascii: "f") where consume("false"): return false
        default: throw error(.wrongType)
        }
    }

    /// Reads an integer written as a plain integer literal (`-12`, `0`). Other forms of a number (`1e3`, `1.0`)
    /// are refused with ``JSONScanError/Code/unsupportedNumber``, as are values out of range: `JSONDecoder`'s
    /// rules for those are intricate, and the caller falls back to it.
    mutating func readInt64() throws(JSONScanError) -> Int64 {
        skipWhitespace()
        let negative = peek() == UInt8(ascii: "-")
        if negative { offset += 1 }
        var value: Int64 = 0
        let first = peek()
        guard first &- UInt8(ascii: "0") < 10 else { throw error(negative ? .unexpectedByte : .wrongType) }
        offset += 1
        value = Int64(first &- UInt8(ascii: "0"))
        if negative { value = -value }
        if first != UInt8(ascii: "0") {
            while case let digit = peek() &- UInt8(ascii: "0"), digit < 10 {
                let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) =
                    negative
                    ? times.subtractingReportingOverflow(Int64(digit)) : times.addingReportingOverflow(Int64(digit))
                guard !overflow1, !overflow2 else { throw error(.unsupportedNumber) }
                value = sum
                offset += 1
            }
        }
        switch peek() {
        case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            throw error(.unsupportedNumber)
        default:
            return value
        }
    }

    /// Reads an integer that fits `Int` (see ``readInt64()``).
    mutating func readInt() throws(JSONScanError) -> Int {
        guard let value = Int(exactly: try readInt64()) else { throw error(.unsupportedNumber) }
        return value
    }

    // MARK: Skipping

    /// Skips one value of any shape, checking that it is valid JSON.
    mutating func skipValue() throws(JSONScanError) {
        skipWhitespace()
        switch peek() {
        case Self.quote:
            try skipString()
        case UInt8(ascii: "{"):
            guard try enterObject() else { return }
            repeat {
                _ = try readKey()
                try skipValue()
            } while try nextMember()
        case UInt8(ascii: "["):
            guard try enterArray() else { return }
            repeat {
                try skipValue()
            } while try nextElement()
        case UInt8(ascii: "t"):
            guard consume("true") else { throw error(.unexpectedByte) }
        case UInt8(ascii: "f"):
            guard consume("false") else { throw error(.unexpectedByte) }
        case UInt8(ascii: "n"):
            guard consume("null") else { throw error(.unexpectedByte) }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try skipNumber()
        default:
            throw error(.unexpectedByte)
        }
    }

    private mutating func skipString() throws(JSONScanError) {
        offset += 1
        let start = offset
        var high: UInt8 = 0
        while true {
            let byte = peek()
            if byte == Self.quote {
                break
            } else if byte == Self.backslash {
                offset += 1
                switch peek() {
                case UInt8(ascii: "\""), Self.backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    offset += 1
                case UInt8(ascii: "u"):
                    offset += 1
                    _ = try readHex4()
                default:
                    throw error(.invalidString)
                }
                continue
            } else if byte < 0x20 {
                throw error(byte == 0 && offset == end ? .unexpectedByte : .invalidString)
            }
            high |= byte
            offset += 1
        }
        if high >= 0x80 {
            // Rare: validate by decoding (escapes are ASCII, so the raw bytes alone must be valid UTF-8).
            guard String(validating: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self) != nil
            else { throw error(.invalidString) }
        }
        offset += 1
    }

    /// Skips a number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func skipNumber() throws(JSONScanError) {
        if peek() == UInt8(ascii: "-") { offset += 1 }
        if peek() == UInt8(ascii: "0") {
            offset += 1
        } else {
            try skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            offset += 1
            try skipDigits()
        }
        if peek() | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { offset += 1 }
            try skipDigits()
        }
        if peek() &- UInt8(ascii: "0") < 10 { throw error(.unexpectedByte) }
    }

    /// Skips one or more digits.
    private mutating func skipDigits() throws(JSONScanError) {
        guard peek() &- UInt8(ascii: "0") < 10 else { throw error(.unexpectedByte) }
        repeat { offset += 1 } while peek() &- UInt8(ascii: "0") < 10
    }
}
