import Synchronization

/// The message ids a soak session's message stream delivered, kept for the whole run to find one delivered twice.
///
/// Every session keeps every id of its group's messages (about 810 ids a session, 810 000 across 1 000 sessions
/// in ten minutes), so this record is the soak's own memory, growing with the run, which the soak must not mistake
/// for Lifeline's. A Stoat id is a ULID: its 128 bits are numbered once per group by a shared
/// ``MessageNumbering`` (the order in which the group's sessions first saw them), and a session keeps one bit per
/// number — about 100 bytes a session where a set of 16-byte ids held about 32 KB. An id that is not a ULID
/// (lowercase, another alphabet, another length) is kept as its string. Two ids are the same entry exactly when
/// their strings are equal: the numbering gives distinct ULIDs distinct numbers.
struct DeliveredIDs {
    private let numbering: MessageNumbering
    /// Bit `n % 64` of word `n / 64` is set once the ULID numbered `n` was delivered.
    private var words: [UInt64] = []
    private var others: Set<String> = []
    /// How many distinct ids.
    private(set) var count = 0

    /// A record that numbers its ULIDs with `numbering`: shared by a group's sessions, so that their bitsets
    /// stay as small as the group's traffic.
    init(numbering: MessageNumbering = MessageNumbering()) {
        self.numbering = numbering
    }

    /// How many 64-bit words the bitset holds (its memory, for the tests).
    var wordCount: Int { words.count }

    /// Adds `id`; whether it was new.
    mutating func insert(_ id: String) -> Bool {
        guard let bits = ULIDBits(id) else {
            let inserted = others.insert(id).inserted
            if inserted { count += 1 }
            return inserted
        }
        let (word, bit) = numbering.number(of: bits).quotientAndRemainder(dividingBy: 64)
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word - words.count + 1)) }
        let mask: UInt64 = 1 << UInt64(bit)
        guard words[word] & mask == 0 else { return false }
        words[word] |= mask
        count += 1
        return true
    }

    /// Whether `id` was delivered.
    func contains(_ id: String) -> Bool {
        guard let bits = ULIDBits(id) else { return others.contains(id) }
        guard let number = numbering.existingNumber(of: bits) else { return false }
        let (word, bit) = number.quotientAndRemainder(dividingBy: 64)
        return word < words.count && words[word] & (1 << UInt64(bit)) != 0
    }
}

/// Numbers a group's message ids 0, 1, 2 … in the order its sessions first deliver them, for ``DeliveredIDs``:
/// one entry per message of the group, however many sessions the group has.
final class MessageNumbering: Sendable {
    private let numbers = Mutex<[ULIDBits: Int]>([:])

    /// How many ids have a number.
    var count: Int { numbers.withLock { $0.count } }

    /// The number of `bits`, if it has one.
    func existingNumber(of bits: ULIDBits) -> Int? { numbers.withLock { $0[bits] } }

    /// The number of `bits`, given now if it has none yet.
    func number(of bits: ULIDBits) -> Int {
        numbers.withLock { numbers in
            if let number = numbers[bits] { return number }
            let number = numbers.count
            numbers[bits] = number
            return number
        }
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
