import Foundation

/// A forward-only MessagePack reader for the fast `Ready` decoder: it reads a MessagePack `Ready` straight into
/// the models, through the same field dispatch as JSON (``ReadyReader``), with no JSON in between.
///
/// It takes a frame only as the transcoding path (``MessagePack``'s JSON, then the JSON decoders) would read
/// it: `str` and `bin` both as strings, which must be UTF-8 wherever they are (a key, a value, or skipped);
/// integer map keys as their decimal text; integers as themselves. It refuses what that path treats in a way
/// of its own — a float where an integer belongs, an extension where a value is read, nesting deeper than
/// ``JSONScanner/maximumDepth`` — and ``BonfireDecoder`` then transcodes the frame, whose verdict is the one
/// reported.
///
/// Like ``JSONScanner`` it never reads outside its buffer (every read is bounds-checked), always advances,
/// bounds its recursion, and never trusts a length the frame states: an array or map claiming more elements
/// than the bytes left could hold is refused before anything is read or reserved. The buffer must outlive the
/// reader; use it inside `withUnsafeBytes`.
struct MessagePackReader: ReadyReader {
    /// A key read by ``readKey()``: where its bytes are.
    struct Key {
        /// The offset of its first byte in the input, or -1 for an integer key (its decimal text is in the
        /// reader's scratch buffer).
        var start: Int
        /// The number of bytes of its text.
        var count: Int
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    /// Where the next byte is read, over `bytes`.
    private var cursor: ByteCursor<JSONScanError>
    /// The offset of the next byte to read.
    private(set) var offset: Int {
        @inline(__always) get { cursor.offset }
        @inline(__always) set { cursor.offset = newValue }
    }
    /// The items left in the innermost array or map entered and not yet left (a map's members), the one being
    /// read included; meaningful only while `depth` > 0. Kept apart from the enclosing ones so that each item
    /// read touches a stored integer rather than the top of an array.
    private var left = 0
    /// The items left in each enclosing array or map, the innermost last.
    private var enclosing: [Int] = []
    /// How many arrays and maps are entered and not yet left.
    private var depth = 0
    /// The decimal text of the last integer key.
    private var scratch: [UInt8] = []

    /// Creates a reader at the start of `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        cursor = ByteCursor(UnsafeRawBufferPointer(bytes))
    }

    private func error(_ code: JSONScanError.Code) -> JSONScanError {
        JSONScanError(code: code, offset: offset)
    }

    /// The length of the `str` or `bin` whose type byte `type` was just read (its length bytes consumed, the
    /// length checked against the bytes left), or nil when `type` is neither.
    @inline(__always)
    private mutating func stringLength(_ type: UInt8) throws(JSONScanError) -> Int? {
        let count: UInt64
        switch type {
        case 0xA0...0xBF: count = UInt64(type & 0x1F)
        case 0xC4, 0xD9: count = try cursor.unsigned(1)
        case 0xC5, 0xDA: count = try cursor.unsigned(2)
        case 0xC6, 0xDB: count = try cursor.unsigned(4)
        default: return nil
        }
        guard count <= UInt64(bytes.count - offset) else { throw error(.unexpectedByte) }
        return Int(count)
    }

    /// Whether the `count` bytes from `start` (in bounds) are ASCII, eight at a time: the last word overlaps the
    /// one before it rather than ending byte by byte, and a run shorter than a word is one word's load, masked,
    /// where the frame has the bytes (keys and most values are short).
    @inline(__always)
    private func isASCII(from start: Int, count: Int) -> Bool {
        let base = UnsafeRawPointer(bytes.baseAddress! + start)
        let highs: UInt64 = 0x8080_8080_8080_8080
        if count >= 8 {
            var high: UInt64 = 0
            var index = 0
            while count - index > 8 {
                high |= base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            high |= base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            return high & highs == 0
        }
        if bytes.count - start >= 8 {
            // The `count` bytes first in the input are the word's lowest (little-endian).
            let word = UInt64(littleEndian: base.loadUnaligned(as: UInt64.self))
            let mask: UInt64 = count == 0 ? 0 : ~0 >> (64 - 8 * count)
            return word & mask & highs == 0
        }
        var high: UInt8 = 0
        for index in 0..<count { high |= base.load(fromByteOffset: index, as: UInt8.self) }
        return high < 0x80
    }

    /// The `count` bytes from `start` (in bounds) as a string, which they must be as UTF-8. ASCII, the common
    /// case, is checked here and copied; `String(validating:)`, generic and unspecialized, is left to the rest.
    @inline(__always)
    private func string(from start: Int, count: Int) throws(JSONScanError) -> String {
        let buffer = UnsafeBufferPointer(rebasing: bytes[start..<start + count])
        if isASCII(from: start, count: count) { return JSONScanner.asciiString(buffer) }
        guard let string = String(validating: buffer, as: UTF8.self) else { throw error(.invalidString) }
        return string
    }

    /// Checks that the `count` bytes from `start` (in bounds) are UTF-8.
    @inline(__always)
    private func validate(from start: Int, count: Int) throws(JSONScanError) {
        guard !isASCII(from: start, count: count) else { return }
        let buffer = UnsafeBufferPointer(rebasing: bytes[start..<start + count])
        guard String(validating: buffer, as: UTF8.self) != nil else { throw error(.invalidString) }
    }

    /// Checks that only the frame's one value was read.
    func finish() throws(JSONScanError) {
        guard offset == bytes.count else { throw error(.trailingBytes) }
    }

    // MARK: Containers

    private mutating func enter(map: Bool) throws(JSONScanError) -> Bool {
        let start = offset
        let type = try cursor.byte()
        let count: UInt64
        switch type {
        case 0x80...0x8F where map: count = UInt64(type & 0x0F)
        case 0xDE where map: count = try cursor.unsigned(2)
        case 0xDF where map: count = try cursor.unsigned(4)
        case 0x90...0x9F where !map: count = UInt64(type & 0x0F)
        case 0xDC where !map: count = try cursor.unsigned(2)
        case 0xDD where !map: count = try cursor.unsigned(4)
        default:
            offset = start
            throw error(.wrongType)
        }
        // A member takes at least two bytes, an element one: a count beyond what is left is refused unused.
        guard count <= UInt64(bytes.count - offset) / (map ? 2 : 1) else { throw error(.unexpectedByte) }
        guard depth < JSONScanner.maximumDepth else { throw error(.tooDeep) }
        guard count > 0 else { return false }
        if depth > 0 { enclosing.append(left) }
        left = Int(count)
        depth += 1
        return true
    }

    private mutating func next() throws(JSONScanError) -> Bool {
        guard depth > 0 else { throw error(.unexpectedByte) }
        if left > 1 {
            left -= 1
            return true
        }
        depth -= 1
        left = depth > 0 ? enclosing.removeLast() : 0
        return false
    }

    mutating func enterObject() throws(JSONScanError) -> Bool {
        try enter(map: true)
    }

    mutating func nextMember() throws(JSONScanError) -> Bool {
        try next()
    }

    mutating func enterArray() throws(JSONScanError) -> Bool {
        try enter(map: false)
    }

    mutating func nextElement() throws(JSONScanError) -> Bool {
        try next()
    }

    func elementCountHint(elementSize: Int) -> Int {
        min(depth > 0 ? left : 0, (bytes.count - offset) * 4 / max(elementSize, 1))
    }

    // MARK: Keys

    /// Reads a map key: a string (its UTF-8 checked), or an integer read as its decimal text.
    mutating func readKey() throws(JSONScanError) -> Key {
        let start = offset
        let type = try cursor.byte()
        if let count = try stringLength(type) {
            let key = Key(start: offset, count: count)
            try validate(from: offset, count: count)
            offset += count
            return key
        }
        let text: String
        switch type {
        case 0x00...0x7F, 0xE0...0xFF, 0xD0...0xD3:
            offset = start
            text = String(try readInt64())
        case 0xCC...0xCF:
            offset = start
            text = String(try readUnsigned())
        default:
            offset = start
            throw error(.wrongType)
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: text.utf8)
        return Key(start: -1, count: scratch.count)
    }

    @inline(__always)
    func key(_ key: Key, is name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        if key.start >= 0 { return JSONScanner.equal(bytes.baseAddress! + key.start, name) }
        return scratch.withUnsafeBufferPointer { JSONScanner.equal($0.baseAddress!, name) }
    }

    func string(of key: Key) throws(JSONScanError) -> String {
        // `readKey()` checked the key's UTF-8.
        guard key.start >= 0 else { return String(decoding: scratch, as: UTF8.self) }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[key.start..<key.start + key.count]), as: UTF8.self)
    }

    // MARK: Values

    mutating func readNull() -> Bool {
        guard cursor.peek() == 0xC0 else { return false }
        offset += 1
        return true
    }

    mutating func nextIsNumber() -> Bool {
        switch cursor.peek() {
        case 0x00...0x7F, 0xE0...0xFF, 0xCA...0xD3: true
        default: false
        }
    }

    /// Consumes an empty map, in any of its three encodings, if it is next.
    mutating func readEmptyObject() -> Bool {
        let length: Int
        switch cursor.peek() {
        case 0x80: length = 1
        case 0xDE: length = 3
        case 0xDF: length = 5
        default: return false
        }
        guard bytes.count - offset >= length, (1..<length).allSatisfy({ bytes[offset + $0] == 0 }) else {
            return false
        }
        offset += length
        return true
    }

    mutating func readString() throws(JSONScanError) -> String {
        let start = offset
        let type = try cursor.byte()
        guard let count = try stringLength(type) else {
            offset = start
            throw error(.wrongType)
        }
        let string = try string(from: offset, count: count)
        offset += count
        return string
    }

    mutating func readBool() throws(JSONScanError) -> Bool {
        switch cursor.peek() {
        case 0xC2:
            offset += 1
            return false
        case 0xC3:
            offset += 1
            return true
        default:
            throw error(.wrongType)
        }
    }

    /// Reads an unsigned integer of the `uint` family (0xCC–0xCF).
    private mutating func readUnsigned() throws(JSONScanError) -> UInt64 {
        switch try cursor.byte() {
        case 0xCC: try cursor.unsigned(1)
        case 0xCD: try cursor.unsigned(2)
        case 0xCE: try cursor.unsigned(4)
        default: try cursor.unsigned(8)
        }
    }

    /// Reads an integer that fits `Int64`. A float, even a whole one, is refused with
    /// ``JSONScanError/Code/unsupportedNumber``, as the JSON scanner refuses `2.0`.
    mutating func readInt64() throws(JSONScanError) -> Int64 {
        let start = offset
        let type = try cursor.byte()
        switch type {
        case 0x00...0x7F: return Int64(type)
        case 0xE0...0xFF: return Int64(Int8(bitPattern: type))
        case 0xCC...0xCF:
            offset = start
            guard let value = Int64(exactly: try readUnsigned()) else { throw error(.unsupportedNumber) }
            return value
        case 0xD0: return Int64(Int8(truncatingIfNeeded: try cursor.unsigned(1)))
        case 0xD1: return Int64(Int16(truncatingIfNeeded: try cursor.unsigned(2)))
        case 0xD2: return Int64(Int32(truncatingIfNeeded: try cursor.unsigned(4)))
        case 0xD3: return Int64(bitPattern: try cursor.unsigned(8))
        case 0xCA, 0xCB:
            offset = start
            throw error(.unsupportedNumber)
        default:
            offset = start
            throw error(.wrongType)
        }
    }

    mutating func readInt() throws(JSONScanError) -> Int {
        guard let value = Int(exactly: try readInt64()) else { throw error(.unsupportedNumber) }
        return value
    }

    // MARK: Skipping

    /// Skips one value of any shape, checking it as the transcoding path would: strings must be UTF-8, keys
    /// strings or integers, and nothing may be truncated or use the byte 0xC1.
    mutating func skipValue() throws(JSONScanError) {
        let start = offset
        let type = try cursor.byte()
        if let count = try stringLength(type) {
            try validate(from: offset, count: count)
            offset += count
            return
        }
        switch type {
        case 0x00...0x7F, 0xE0...0xFF, 0xC0, 0xC2, 0xC3: return
        case 0x80...0x8F, 0xDE, 0xDF:
            offset = start
            guard try enterObject() else { return }
            repeat {
                _ = try readKey()
                try skipValue()
            } while try nextMember()
        case 0x90...0x9F, 0xDC, 0xDD:
            offset = start
            guard try enterArray() else { return }
            repeat {
                try skipValue()
            } while try nextElement()
        case 0xCC, 0xD0: try cursor.skip(1)
        case 0xCD, 0xD1: try cursor.skip(2)
        case 0xCA, 0xCE, 0xD2: try cursor.skip(4)
        case 0xCB, 0xCF, 0xD3: try cursor.skip(8)
        case 0xC7: try cursor.skip(try cursor.unsigned(1) + 1)  // an extension: its type byte and data
        case 0xC8: try cursor.skip(try cursor.unsigned(2) + 1)
        case 0xC9: try cursor.skip(try cursor.unsigned(4) + 1)
        case 0xD4: try cursor.skip(2)
        case 0xD5: try cursor.skip(3)
        case 0xD6: try cursor.skip(5)
        case 0xD7: try cursor.skip(9)
        case 0xD8: try cursor.skip(17)
        default:
            offset = start
            throw error(.unexpectedByte)  // 0xC1
        }
    }
}
