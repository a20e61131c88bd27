import Foundation
import Testing

@testable import LifelineBenchmarks

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The soak's live heap, beside its resident memory")
struct LiveHeapTests {
    @Test("a malloc_info report's totals give the live heap: system current less fast and rest, plus mmap")
    func report() {
        // The per-arena figures come first and are not the totals.
        let report = """
            <malloc version="1">
            <heap nr="0">
            <sizes>
            </sizes>
            <total type="fast" count="1" size="999"/>
            <total type="rest" count="1" size="999"/>
            <system type="current" size="9999"/>
            </heap>
            <total type="fast" count="3" size="96"/>
            <total type="rest" count="7" size="4000"/>
            <total type="mmap" count="2" size="2097152"/>
            <system type="current" size="135168"/>
            <system type="max" size="200000"/>
            <aspace type="total" size="135168"/>
            </malloc>
            """
        #expect(LiveHeap.bytes(inReport: report) == 135_168 - 96 - 4_000 + 2_097_152)
        #expect(LiveHeap.bytes(inReport: "<malloc version=\"1\"></malloc>") == nil)
        let impossible = """
            <total type="fast" count="0" size="0"/>
            <total type="rest" count="1" size="5000"/>
            <total type="mmap" count="0" size="0"/>
            <system type="current" size="4096"/>
            """
        #expect(LiveHeap.bytes(inReport: impossible) == nil)
    }

    #if os(Linux)
        @Test("blocks the process holds count in the live heap; freed, they no longer do")
        func realHeap() throws {
            // The heap is the process's, and other tests allocate and free beside this one (a hundred MiB at once
            // has been seen): a trial their noise spoils is taken again, up to five times. A measure that does not
            // see the blocks fails every trial.
            var trials: [String] = []
            for _ in 0..<5 {
                let before = try #require(LiveHeap.bytes())
                // 64 MiB in blocks small enough to come from an arena, not mapped on their own.
                let blocks = (0..<16_384).map { _ in malloc(4_096)! }
                for block in blocks { memset(block, 1, 4_096) }
                let holding = try #require(LiveHeap.bytes())
                for block in blocks { free(block) }
                let after = try #require(LiveHeap.bytes())
                if holding - before >= 48 << 20, holding - after >= 48 << 20 { return }
                trials.append("\(before) → \(holding) → \(after)")
            }
            Issue.record("the 64 MiB held and freed were not seen in any trial: \(trials)")
        }
    #endif
}
