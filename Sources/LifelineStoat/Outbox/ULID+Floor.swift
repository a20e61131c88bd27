extension ULID {
    /// Crockford's base 32 digits, in order.
    private static let digits = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// The smallest ULID of a millisecond: its time, then zeros. Every id the server makes at that millisecond
    /// or later sorts after it, so it bounds a query (`after=`) from below.
    ///
    /// - Parameter milliseconds: Milliseconds since 1970, clamped to ULID's 48 bits.
    static func floor(milliseconds: Int64) -> String {
        var value = UInt64(clamping: max(0, min(milliseconds, (1 << 48) - 1)))
        var time = [UInt8](repeating: UInt8(ascii: "0"), count: 10)
        for index in stride(from: 9, through: 0, by: -1) {
            time[index] = digits[Int(value & 31)]
            value >>= 5
        }
        return String(decoding: time, as: UTF8.self) + String(repeating: "0", count: 16)
    }
}
