#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The date formats of Stoat's REST API: ISO 8601 timestamps in bodies, HTTP dates in headers.
enum StoatDates {
    /// An ISO 8601 timestamp, with or without fractional seconds (`2025-06-01T12:00:00.123Z`).
    static func iso8601(_ string: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string) {
            return date
        }
        return try? Date.ISO8601FormatStyle().parse(string)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// An HTTP date in RFC 9110's preferred form, `Sun, 06 Nov 1994 08:49:37 GMT`; `nil` for anything else.
    static func httpDate(_ string: String) -> Date? {
        // "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
        let fields = string.split(separator: " ")
        guard fields.count == 6, fields[0].hasSuffix(","), fields[5] == "GMT",
            let day = Int(fields[1]), (1...31).contains(day),
            let month = months.firstIndex(of: String(fields[2])),
            let year = Int(fields[3]), fields[3].count == 4
        else { return nil }
        let time = fields[4].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, time.allSatisfy({ $0.count == 2 }),
            let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month + 1, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension StoatDates {
    /// An ISO 8601 timestamp as stoatchat writes it: UTC, milliseconds, `Z` (`2025-06-01T12:00:00.123Z`).
    static func iso8601String(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension KeyedDecodingContainer {
    /// An ISO 8601 timestamp, or `nil` when the key is absent or null.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the value is a string but not an ISO 8601 timestamp.
    func decodeTimestampIfPresent(forKey key: Key) throws -> Date? {
        guard let string = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = StoatDates.iso8601(string) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an ISO 8601 timestamp")
        }
        return date
    }
}

extension KeyedEncodingContainer {
    /// Encodes a timestamp as stoatchat writes it, or nothing when it is `nil`.
    mutating func encodeTimestampIfPresent(_ date: Date?, forKey key: Key) throws {
        guard let date else { return }
        try encode(StoatDates.iso8601String(date), forKey: key)
    }
}
