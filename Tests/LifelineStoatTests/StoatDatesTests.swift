import Foundation
import LifelineTesting
import Testing

@testable import LifelineStoat

@Suite("Timestamps read by hand")
struct StoatDatesTests {
    /// Foundation's own reading, the reference.
    static func foundation(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    @Test("stoatchat's timestamps, with milliseconds or without, read to exactly the Date Foundation's parser gives")
    func sameAsFoundation() throws {
        var random = SeededRandomNumberGenerator(seed: 20_261_125)
        let seconds = Date.ISO8601FormatStyle()
        for _ in 0..<20_000 {
            let milliseconds = Int64.random(in: 0...253_402_300_799_999, using: &random)
            let whole = Date(timeIntervalSince1970: Double(milliseconds / 1000)).formatted(seconds)
            var text = whole
            text.insert(
                contentsOf: "." + String(String(milliseconds % 1000 + 1000).dropFirst()),
                at: text.index(before: text.endIndex))
            let date = try #require(StoatDates.stoatTimestamp(text), "\(text)")
            #expect(date == Self.foundation(text), "\(text)")
            #expect(StoatDates.stoatTimestamp(whole) == Self.foundation(whole), "\(whole)")
        }
        #expect(StoatDates.stoatTimestamp("2024-02-29T23:59:59.999Z") == Self.foundation("2024-02-29T23:59:59.999Z"))
        #expect(StoatDates.stoatTimestamp("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
    }

    @Test(
        "any other text is not read by hand, and reads as Foundation reads it",
        arguments: [
            "2023-02-29T00:00:00Z", "2025-04-31T00:00:00Z", "2025-13-01T00:00:00Z", "2025-06-01T24:00:00Z",
            "2025-06-01T12:60:00Z", "2016-12-31T23:59:60Z", "1969-12-31T23:59:59Z", "2025-06-01T12:00:00.1Z",
            "2025-06-01T12:00:00.123456Z", "2025-06-01T12:00:00+00:00", "2025-06-01T12:00:00.123z",
            "2025-06-01 12:00:00Z", "2025-06-01T12:00:0xZ", "+025-06-01T12:00:00Z", "", "not a date at all!!",
        ])
    func otherTexts(text: String) {
        #expect(StoatDates.stoatTimestamp(text) == nil)
        #expect(StoatDates.iso8601(text) == Self.foundation(text))
    }
}
