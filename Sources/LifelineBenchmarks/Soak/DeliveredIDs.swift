/// The message ids a soak session's message stream delivered, kept for the whole run to find one delivered twice.
///
/// Every session keeps every id of its group's messages (about 750 000 ids across 1 000 sessions in ten
/// minutes), so the set is the soak's own memory, growing with the run: as `String`s, each id holds a
/// 64-byte heap object besides its slot. A Stoat id is a ULID — 26 Crockford base-32 digits, 128 bits — so it
/// is kept as those 16 bytes, in the slot itself; an id that is not one (lowercase, another alphabet, another
/// length) is kept as its string, so two ids are the same entry exactly when their strings are equal.
struct DeliveredIDs {
    private var ulids: Set<ULIDBits> = []
    private var others: Set<String> = []

    /// How many distinct ids.
    var count: Int { ulids.count + others.count }

    /// Adds `id`; whether it was new.
    mutating func insert(_ id: String) -> Bool {
        if let bits = ULIDBits(id) { return ulids.insert(bits).inserted }
        return others.insert(id).inserted
    }
}

/// A ULID's 128 bits: 26 digits of Crockford's base 32 in upper case, the first at most `7`.
struct ULIDBits: Hashable {
    var high: UInt64
    var low: UInt64

    init?(_ id: String) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var count = 0
        for byte in id.utf8 {
            guard count < 26, let digit = Self.digit(byte) else { return nil }
            if count == 0, digit > 7 { return nil }  // 26 digits carry 130 bits; a ULID's top two are zero
            high = high << 5 | low >> 59
            low = low << 5 | UInt64(digit)
            count += 1
        }
        guard count == 26 else { return nil }
        self.high = high
        self.low = low
    }

    /// The value of an upper-case Crockford digit (`0`–`9`, `A`–`Z` without `I`, `L`, `O`, `U`).
    private static func digit(_ byte: UInt8) -> UInt64? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt64(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
            guard let index = alphabet.firstIndex(of: byte) else { return nil }
            return UInt64(10 + index)
        default: return nil
        }
    }

    private static let alphabet = Array("ABCDEFGHJKMNPQRSTVWXYZ".utf8)
}
