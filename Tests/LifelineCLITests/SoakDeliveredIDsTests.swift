import LifelineStoat
import Testing

@testable import LifelineBenchmarks

/// The soak's record of delivered message ids keeps a ULID in 16 bytes, and still tells two ids apart exactly
/// when their strings differ.
@Suite("The soak's delivered ids")
struct SoakDeliveredIDsTests {
    static let id = "01M89285G967PKR679V2HVE6HQ"

    /// Inserts each id in order; whether each was new.
    static func insert(_ list: [String], into ids: inout DeliveredIDs) -> [Bool] {
        list.map { ids.insert($0) }
    }

    @Test("an id delivered twice is found the second time, and counted once")
    func duplicate() {
        var ids = DeliveredIDs()
        #expect(Self.insert([Self.id, Self.id], into: &ids) == [true, false])
        #expect(ids.count == 1)
    }

    @Test("ids that differ in their first or last digit are two entries")
    func distinctDigits() {
        var ids = DeliveredIDs()
        let inserted = Self.insert(
            [
                "01M89285G967PKR679V2HVE6HQ", "01M89285G967PKR679V2HVE6HR", "71M89285G967PKR679V2HVE6HQ",
                "00M89285G967PKR679V2HVE6HQ",
            ], into: &ids)
        #expect(inserted == [true, true, true, true])
        #expect(ids.count == 4)
    }

    @Test("the 128 bits are the ULID's: its top 48 are the milliseconds LifelineStoat reads from the same id")
    func bitsAreTheULID() throws {
        let bits = try #require(ULIDBits(Self.id))
        #expect(Int64(bits.high >> 16) == ULID.milliseconds(of: Self.id))
        let last = try #require(ULIDBits("0000000000000000000000000Z"))
        #expect(last.high == 0 && last.low == 31)
        let top = try #require(ULIDBits("7ZZZZZZZZZZZZZZZZZZZZZZZZZ"))
        #expect(top.high == .max && top.low == .max)
    }

    @Test(
        "an id that is not an upper-case ULID is kept as its string: lowercase, I L O U, a ninth first digit, 27 digits"
    )
    func notULIDs() {
        for id in [
            Self.id.lowercased(), "01M89285G967PKR679V2HVE6HI", "01M89285G967PKR679V2HVE6HU",
            "81M89285G967PKR679V2HVE6HQ", "PADDING00000000000000000000", "", "01M89285G967PKR679V2HVE6H",
        ] {
            #expect(ULIDBits(id) == nil, "\(id)")
        }
        var ids = DeliveredIDs()
        let inserted = Self.insert(
            [
                Self.id, Self.id.lowercased(), Self.id.lowercased(), "PADDING00000000000000000000",
                "PADDING00000000000000000000",
            ], into: &ids)
        #expect(inserted == [true, true, false, true, false])
        #expect(ids.count == 3)
    }
}
