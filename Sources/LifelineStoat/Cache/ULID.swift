#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The time part of a ULID, the identifier Stoat gives users, channels and messages.
///
/// A ULID's first ten characters are its creation time in milliseconds since 1970, in Crockford's base 32;
/// ULIDs therefore sort by time as strings, and a message id says when the message was sent. Stoat's
/// `last_message_id` on a channel thus dates the channel's last activity without fetching the message.
public enum ULID {
    /// The creation time encoded in a ULID, or `nil` when the string is not one (wrong length or a
    /// character outside Crockford's alphabet).
    ///
    /// - Parameter id: A 26-character ULID.
    public static func date(of id: String) -> Date? {
        milliseconds(of: id).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// The creation time encoded in a ULID, in milliseconds since 1970.
    ///
    /// - Parameter id: A 26-character ULID.
    public static func milliseconds(of id: String) -> Int64? {
        let utf8 = id.utf8
        guard utf8.count == 26 else { return nil }
        var value: Int64 = 0
        for byte in utf8.prefix(10) {
            guard let digit = digit(byte) else { return nil }
            value = value << 5 | Int64(digit)
        }
        // Ten characters hold 50 bits; a ULID's time has 48, so the first character is at most 7.
        return value >> 48 == 0 ? value : nil
    }

    /// The ULID just below `id` (one less in its last digit, borrowing as base 32 does), in Crockford's
    /// canonical upper case: a bound that includes `id` itself in a query for the messages `after` it. `nil`
    /// for a string that is not a ULID, and for the smallest ULID.
    ///
    /// - Parameter id: A 26-character ULID.
    public static func predecessor(of id: String) -> String? {
        guard milliseconds(of: id) != nil else { return nil }
        var digits = id.utf8.compactMap(digit)
        guard digits.count == 26 else { return nil }
        var index = digits.count - 1
        while index >= 0 {
            if digits[index] > 0 {
                digits[index] -= 1
                return String(decoding: digits.map { alphabet[Int($0)] }, as: UTF8.self)
            }
            digits[index] = 31
            index -= 1
        }
        return nil
    }

    /// The ULID just above `id` (one more in its last digit, carrying as base 32 does), in Crockford's
    /// canonical upper case. `nil` for a string that is not a ULID, and for the largest ULID.
    ///
    /// - Parameter id: A 26-character ULID.
    public static func successor(of id: String) -> String? {
        guard milliseconds(of: id) != nil else { return nil }
        var digits = id.utf8.compactMap(digit)
        guard digits.count == 26 else { return nil }
        var index = digits.count - 1
        while index >= 0 {
            if digits[index] < 31 {
                digits[index] += 1
                let result = String(decoding: digits.map { alphabet[Int($0)] }, as: UTF8.self)
                return milliseconds(of: result) != nil ? result : nil
            }
            digits[index] = 0
            index -= 1
        }
        return nil
    }

    /// The ULID just below every ULID of `id`'s millisecond: a bound for the messages `after` it that holds
    /// those sent in the same millisecond. `nil` for a string that is not a ULID, or of the first millisecond.
    ///
    /// - Parameter id: A 26-character ULID.
    public static func floor(of id: String) -> String? {
        guard milliseconds(of: id) != nil else { return nil }
        return predecessor(of: String(id.uppercased().prefix(10)) + String(repeating: "0", count: 16))
    }

    /// Crockford's alphabet, by value.
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    private static func digit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): table[Int(byte - UInt8(ascii: "a"))]
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): table[Int(byte - UInt8(ascii: "A"))]
        default: nil
        }
    }

    /// Crockford's values of the letters A…Z (I and L read as 1, O as 0, U is not a digit).
    private static let table: [UInt8?] = [
        10, 11, 12, 13, 14, 15, 16, 17, 1, 18, 19, 1, 20, 21, 0, 22, 23, 24, 25, 26, nil, 27, 28, 29, 30, 31,
    ]
}
