import Testing

@testable import LifelineStoat

@Suite("Events that overtake their message")
struct EarlyMessageEventsTests {
    @Test("A deletion remembered before its message keeps the message out; an edit is applied to it when it comes")
    func overtaken() {
        var early = EarlyMessageEvents()
        early.deleted("A")
        early.changed(.update(id: "B", data: PartialMessage(content: "edited"), clear: []))
        #expect(early.take("A")?.deleted == true)
        #expect(early.take("A") == nil)
        let entry = early.take("B")
        #expect(entry?.deleted == false)
        #expect(entry?.updates.count == 1)
    }

    @Test("What is remembered is bounded: the oldest is forgotten first")
    func bounded() {
        var early = EarlyMessageEvents()
        for index in 0...EarlyMessageEvents.limit { early.deleted("M\(index)") }
        #expect(early.count == EarlyMessageEvents.limit)
        #expect(early.take("M0") == nil)
        #expect(early.take("M\(EarlyMessageEvents.limit)")?.deleted == true)
    }
}
