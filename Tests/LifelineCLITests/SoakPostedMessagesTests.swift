import Testing

@testable import LifelineBenchmarks

@Suite("The soak's record of posted messages")
struct SoakPostedMessagesTests {
    struct Refused: Error {}

    /// Three messages in one channel, acknowledged at 1 s, 2 s and 3 s.
    static func record() -> PostedMessages {
        let posted = PostedMessages()
        posted.record("01A", channel: "C", content: "a", at: .seconds(1))
        posted.record("01B", channel: "C", content: "b", at: .seconds(2))
        posted.record("01C", channel: "C", content: "c", at: .seconds(3))
        return posted
    }

    @Test("Owed: the newest of the window, acknowledged at least the allowance ago")
    func owed() {
        let posted = Self.record()
        let owed = posted.owed(in: "C", at: .seconds(7), newest: 2, allowance: .seconds(5))
        // 01C is too recent (4 s), 01A outside the window of the newest two.
        #expect(owed.map(\.id) == ["01B"])
        #expect(
            posted.owed(in: "C", at: .seconds(9), newest: 3, allowance: .seconds(5)).map(\.id) == ["01C", "01B", "01A"])
    }

    @Test("A message is owed to no history while the server deletes it, and forgotten once it has")
    func deletion() async throws {
        let posted = Self.record()
        // The server tells the sessions before it answers the poster: a check running then must not count the
        // message as lost from a history that already lacks it.
        var owedMeanwhile: [String] = []
        try await posted.delete("01B", channel: "C") {
            owedMeanwhile = posted.owed(in: "C", at: .seconds(9), newest: 3, allowance: .seconds(5)).map(\.id)
        }
        #expect(owedMeanwhile == ["01C", "01A"])
        #expect(posted.messages(in: "C").map(\.id) == ["01A", "01C"])
        #expect(posted.owed(in: "C", at: .seconds(9), newest: 3, allowance: .seconds(5)).map(\.id) == ["01C", "01A"])
        #expect(posted.changes.deletions == 1)
    }

    @Test("A deletion the server refused leaves the message owed")
    func refusedDeletion() async {
        let posted = Self.record()
        await #expect(throws: Refused.self) {
            try await posted.delete("01B", channel: "C") { throw Refused() }
        }
        #expect(posted.messages(in: "C").map(\.id) == ["01A", "01B", "01C"])
        #expect(
            posted.owed(in: "C", at: .seconds(9), newest: 3, allowance: .seconds(5)).map(\.id) == ["01C", "01B", "01A"])
        #expect(posted.changes.deletions == 0)
    }
}
