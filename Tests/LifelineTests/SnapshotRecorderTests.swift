import Lifeline
import LifelineCore
import LifelineTesting
import Testing

@Suite("SnapshotRecorder")
struct SnapshotRecorderTests {
    @Test("a merged snapshot is taken one state at a time: waiting for CONNECTING leaves CONNECTED for the next wait")
    func mergedSnapshotKeepsLaterTransitions() async throws {
        let harness = Harness()
        // Nothing reads the snapshots while the session connects, so LOGIN_CACHED and SOCKET_CONNECTED are
        // published into one merged snapshot; stopping ends the stream, so a missing transition reads as nil.
        _ = await harness.connected()
        await harness.stop()
        let connecting = try #require(await harness.recorder.next(.connecting))
        #expect(connecting.transitions.map(\.to) == [.connecting])
        let connected = try #require(await harness.recorder.next(.connected))
        #expect(connected.transitions.map(\.to) == [.connected])
        #expect(await harness.recorder.stateTrail == [.ready, .connecting, .connected])
    }
}
