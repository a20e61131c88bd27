import Foundation
import Testing

@testable import LifelineStoat

@Suite("Bulk frames, event by event")
struct BonfireBulkTests {
    let decoder = BonfireDecoder()

    @Test("a Bulk is decoded event by event: a bad one is skipped with its reason, the others are kept, in order")
    func elementByElement() {
        let text =
            #"{"type":"Bulk","v":[{"type":"ChannelDelete","id":"A"},{"type":"Message","_id":"M"},"#
            + #"{"type":"Bulk","v":[{"type":"ChannelDelete"},{"type":"ChannelDelete","id":"B"}]},7,"#
            + #"{"type":"Mystery"},{"type":"ChannelDelete","id":"C"}]}"#
        let (outcome, skipped) = decoder.decodeReportingSkips(Data(text.utf8))
        let expected = BonfireEvent.bulk([
            .channelDelete(id: "A"), .bulk([.channelDelete(id: "B")]), .unknown(type: "Mystery"),
            .channelDelete(id: "C"),
        ])
        #expect(outcome == .event(expected))
        #expect(skipped.count == 3)
        // Reasons name paths, never values.
        #expect(skipped.allSatisfy { !$0.isEmpty && !$0.contains("\"M\"") })
        // The public decoder gives the same events.
        #expect(decoder.decode(text) == .event(expected))
    }
}
