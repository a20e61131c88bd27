#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The date formats of Stoat's REST API: ISO 8601 timestamps in bodies, HTTP dates in headers.
enum StoatDates {
    /// An ISO 8601 timestamp, with or without fractional seconds (`2025-06-01T12:00:00.123Z`).
    ///
    /// Decision: the shape stoatchat writes (UTC, whole seconds or milliseconds, `Z`, 1970 to 9999) is read by
    /// hand, to the same `Date` Foundation's parser gives; any other text goes to Foundation's parser. Its
    /// calendar loads ICU's time zone and calendar data, 2.6–3.6 MB resident in a process that otherwise
    /// needs none of it — a tenth of what 1 000 idle sessions hold (`idle-sessions`).
    static func iso8601(_ string: String) -> Date? {
        if let date = stoatTimestamp(string) { return date }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string) {
            return date
        }
        return try? Date.ISO8601FormatStyle().parse(string)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.mmmZ`, a valid date and time of the years 1970 to 9999
    /// (no leap second), as the instant Foundation's ISO 8601 parser reads it to; `nil` for anything else.
    static func stoatTimestamp(_ string: String) -> Date? {
        var string = string
        return string.withUTF8 { bytes -> Date? in
            guard bytes.count == 20 || bytes.count == 24, bytes[bytes.count - 1] == UInt8(ascii: "Z") else {
                return nil
            }
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<(start + count) {
                    let digit = Int(bytes[index]) - 48
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            func separator(_ index: Int, _ character: Unicode.Scalar) -> Bool {
                bytes[index] == UInt8(ascii: character)
            }
            guard separator(4, "-"), separator(7, "-"), separator(10, "T"), separator(13, ":"), separator(16, ":"),
                bytes.count == 20 || separator(19, "."),
                let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
                let minute = number(14, 2), let second = number(17, 2),
                let millisecond = bytes.count == 24 ? number(20, 3) : 0,
                year >= 1970, (1...12).contains(month), hour < 24, minute < 60, second < 60
            else { return nil }
            let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let monthDays = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            guard (1...monthDays).contains(day) else { return nil }
            let seconds =
                daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60
                + second
            // Whole seconds, then the milliseconds as a fraction: the same sum Foundation's parser makes.
            return Date(
                timeIntervalSinceReferenceDate: Double(seconds) - Date.timeIntervalBetween1970AndReferenceDate
                    + Double(millisecond) / 1000)
        }
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

    /// The instant `milliseconds` after the Unix epoch, as the date its ISO 8601 text reads to: bonfire's
    /// MessagePack writes a timestamp as these milliseconds where its JSON writes the text, and the two must
    /// decode to the same `Date` (converting the number through floating-point seconds would not, by a
    /// rounding). Nil before 1970 (Stoat's timestamps never are; and before 1583 Foundation's calendar is the
    /// Julian one, where the proleptic Gregorian text would name another day) and after the year 9999.
    static func date(milliseconds: Int64) -> Date? {
        // 1970-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z.
        guard milliseconds >= 0, milliseconds <= 253_402_300_799_999 else { return nil }
        let (seconds, millisecond) = (milliseconds.floorDivided(by: 1000), milliseconds.floorModulo(1000))
        let (days, secondOfDay) = (seconds.floorDivided(by: 86_400), seconds.floorModulo(86_400))
        // Howard Hinnant's `civil_from_days`.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let text =
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millisecond, 3))Z"
        return iso8601(text)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    fileprivate func floorModulo(_ divisor: Int64) -> Int64 {
        self - floorDivided(by: divisor) * divisor
    }
}

extension KeyedDecodingContainer {
    /// An ISO 8601 timestamp — or, as bonfire's MessagePack writes one, its milliseconds since the Unix
    /// epoch — or `nil` when the key is absent or null.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the value is a string but not an ISO 8601 timestamp, or a
    ///   number outside the years 1970 to 9999; `DecodingError.typeMismatch` when it is neither.
    func decodeTimestampIfPresent(forKey key: Key) throws -> Date? {
        guard contains(key), !(try decodeNil(forKey: key)) else { return nil }
        if let string = try? decode(String.self, forKey: key) {
            guard let date = StoatDates.iso8601(string) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: self, debugDescription: "not an ISO 8601 timestamp")
            }
            return date
        }
        guard let date = StoatDates.date(milliseconds: try decode(Int64.self, forKey: key)) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "a timestamp out of range")
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
