#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Identifiers and secrets in Stoat's shapes.
enum Identifiers {
    private static let crockford = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    private static let tokenAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// A ULID (26 Crockford base-32 characters: 48 bits of milliseconds, 80 random bits), as Stoat's ids are.
    static func ulid(at date: Date = Date()) -> String {
        encode(milliseconds: milliseconds(date), random: (0..<16).map { _ in UInt8.random(in: 0..<32) })
    }

    /// The milliseconds since the epoch of `date`, as a ULID's time part holds them.
    static func milliseconds(_ date: Date) -> UInt64 {
        UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// The time part of a ULID, or nil when `id` is not one.
    static func time(ofULID id: String) -> Date? {
        let digits = Array(id.utf8)
        guard digits.count == 26 else { return nil }
        var milliseconds: UInt64 = 0
        for digit in digits[0..<10] {
            guard let value = crockford.firstIndex(of: digit) else { return nil }
            milliseconds = milliseconds << 5 | UInt64(value)
        }
        return Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }

    /// A ULID from its time part and 16 base-32 digits of randomness (each 0–31).
    static func encode(milliseconds: UInt64, random: [UInt8]) -> String {
        var time = milliseconds
        var timePart = [UInt8](repeating: 0, count: 10)
        for index in (0..<10).reversed() {
            timePart[index] = crockford[Int(time & 31)]
            time >>= 5
        }
        return String(decoding: timePart + random.map { crockford[Int($0 & 31)] }, as: UTF8.self)
    }

    /// A session or bot token: 64 URL-safe random characters, as nanoid makes them.
    static func token() -> String {
        String(decoding: (0..<64).map { _ in tokenAlphabet[Int.random(in: 0..<tokenAlphabet.count)] }, as: UTF8.self)
    }
}

/// ULIDs that sort in creation order even within one millisecond (the ULID spec's monotonic mode): a second id
/// in the same millisecond is the previous one plus one in its random part. Messages use it, so that a page
/// `before`/`after` an id is well defined even when an injected clock stands still.
struct MonotonicULID: Sendable {
    private var lastMilliseconds: UInt64 = 0
    private var lastRandom: [UInt8] = []

    mutating func next(at date: Date) -> String {
        let milliseconds = max(Identifiers.milliseconds(date), lastMilliseconds)
        if milliseconds == lastMilliseconds, !lastRandom.isEmpty {
            var index = lastRandom.count - 1
            while index >= 0 {
                if lastRandom[index] < 31 {
                    lastRandom[index] += 1
                    break
                }
                lastRandom[index] = 0
                index -= 1
            }
        } else {
            lastMilliseconds = milliseconds
            // The top digit stays below 16 so that increments within one millisecond never overflow.
            lastRandom = [UInt8.random(in: 0..<16)] + (1..<16).map { _ in UInt8.random(in: 0..<32) }
        }
        return Identifiers.encode(milliseconds: lastMilliseconds, random: lastRandom)
    }
}
