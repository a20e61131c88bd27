internal import Foundation

/// Appends values to a byte string in an unambiguous form: every variable-length value is preceded by its
/// length, so two different value lists never encode to the same bytes. Used for sealed payloads, associated
/// data and the keyring checksum.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init() {}

    mutating func append(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: Int) {
        append(Int64(value))
    }

    mutating func append(_ value: some Collection<UInt8>) {
        append(value.count)
        bytes.append(contentsOf: value)
    }

    mutating func append(_ value: String) {
        append(value.utf8)
    }

    mutating func append(_ value: String?) {
        if let value {
            bytes.append(1)
            append(value)
        } else {
            bytes.append(0)
        }
    }

    mutating func append(_ value: Int64?) {
        if let value {
            bytes.append(1)
            append(value)
        } else {
            bytes.append(0)
        }
    }

    mutating func append(_ value: Data) {
        append(value.count)
        bytes.append(contentsOf: value)
    }

    mutating func append(_ values: [String]) {
        append(values.count)
        for value in values {
            append(value)
        }
    }

    /// Appends bytes as they are, without a length: for a prefix that is already encoded.
    mutating func appendRaw(_ value: [UInt8]) {
        bytes.append(contentsOf: value)
    }

    mutating func reserveCapacity(_ count: Int) {
        bytes.reserveCapacity(count)
    }

    var data: Data { Data(bytes) }
}

/// Reads what ``ByteWriter`` wrote, in the same order. Every read checks bounds and throws
/// ``ByteReader/Malformed`` instead of trapping: the bytes come from disk.
struct ByteReader {
    struct Malformed: Error {}

    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: Data) {
        bytes = [UInt8](data)
    }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func readInt64() throws(Malformed) -> Int64 {
        guard bytes.count - offset >= 8 else { throw Malformed() }
        var value: UInt64 = 0
        for index in 0..<8 {
            value |= UInt64(bytes[offset + index]) << (8 * UInt64(index))
        }
        offset += 8
        return Int64(bitPattern: value)
    }

    mutating func readInt() throws(Malformed) -> Int {
        Int(try readInt64())
    }

    mutating func readBytes() throws(Malformed) -> ArraySlice<UInt8> {
        let count = try readInt64()
        guard count >= 0, count <= bytes.count - offset else { throw Malformed() }
        defer { offset += Int(count) }
        return bytes[offset..<offset + Int(count)]
    }

    mutating func readString() throws(Malformed) -> String {
        guard let string = String(validating: try readBytes(), as: UTF8.self) else { throw Malformed() }
        return string
    }

    mutating func readData() throws(Malformed) -> Data {
        Data(try readBytes())
    }

    mutating func readOptionalString() throws(Malformed) -> String? {
        try readFlag() ? try readString() : nil
    }

    mutating func readOptionalInt64() throws(Malformed) -> Int64? {
        try readFlag() ? try readInt64() : nil
    }

    mutating func readStrings() throws(Malformed) -> [String] {
        let count = try readInt64()
        // Each string takes at least its 8-byte length: a count beyond that is damage, not a reason to allocate.
        guard count >= 0, count <= (bytes.count - offset) / 8 else { throw Malformed() }
        var values: [String] = []
        values.reserveCapacity(Int(count))
        for _ in 0..<count {
            values.append(try readString())
        }
        return values
    }

    private mutating func readFlag() throws(Malformed) -> Bool {
        guard offset < bytes.count else { throw Malformed() }
        let flag = bytes[offset]
        offset += 1
        switch flag {
        case 0: return false
        case 1: return true
        default: throw Malformed()
        }
    }
}
