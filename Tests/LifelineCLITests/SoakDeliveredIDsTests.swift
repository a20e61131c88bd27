import LifelineStoat
import Testing

@testable import LifelineBenchmarks

/// The soak's record of delivered message ids keeps a ULID as one bit of its group's numbering, and still tells
/// two ids apart exactly when their strings differ.
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

    @Test("contains finds what a session inserted, not what another session of the group did, nor another id")
    func contains() {
        let numbering = MessageNumbering()
        var mine = DeliveredIDs(numbering: numbering)
        var theirs = DeliveredIDs(numbering: numbering)
        _ = theirs.insert("01M89285G967PKR679V2HVE6HR")
        _ = mine.insert(Self.id)
        _ = mine.insert("not a ulid")
        #expect(mine.contains(Self.id))
        #expect(mine.contains("not a ulid"))
        #expect(!mine.contains("01M89285G967PKR679V2HVE6HR"), "numbered by the group, delivered to another")
        #expect(!mine.contains("01M89285G967PKR679V2HVE6HS"), "never numbered")
        #expect(theirs.contains("01M89285G967PKR679V2HVE6HR") && !theirs.contains(Self.id))
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

    /// `count` distinct ULIDs, in order.
    static func ulids(_ count: Int) -> [String] {
        (0..<count).map { index in
            let digits = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
            var value = index
            var id = ""
            for _ in 0..<6 {
                id = String(digits[value % 32]) + id
                value /= 32
            }
            return "01M89285G967PKR679V2" + id
        }
    }

    @Test("sessions sharing a numbering each find their own duplicates, and only theirs")
    func sharedNumbering() {
        let numbering = MessageNumbering()
        var first = DeliveredIDs(numbering: numbering)
        var second = DeliveredIDs(numbering: numbering)
        let ids = Self.ulids(3)
        #expect(Self.insert(ids, into: &first) == [true, true, true])
        #expect(Self.insert([ids[2], ids[0]], into: &second) == [true, true])
        #expect(Self.insert(ids, into: &second) == [false, true, false])
        #expect(Self.insert(ids, into: &first) == [false, false, false])
        #expect(first.count == 3 && second.count == 3)
        #expect(numbering.count == 3)
    }

    @Test("a thousand ids take a bit each: every one found again past the first word, in sixteen words")
    func bitPerID() {
        var ids = DeliveredIDs()
        let list = Self.ulids(1_000)
        #expect(Set(list).count == 1_000)
        #expect(Self.insert(list, into: &ids).allSatisfy { $0 })
        #expect(Self.insert(list.reversed(), into: &ids).allSatisfy { !$0 })
        #expect(ids.count == 1_000)
        #expect(ids.wordCount == 16)
    }
}
