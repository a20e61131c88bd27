import LifelineCore
import Testing

@testable import LifelineBenchmarks

@Suite("The storm's prediction from the retry formula")
struct StormPredictionTests {
    @Test("Waits that start at the drop fill the bins from 0.8 to 1.2 units, N/4 each for 100 ms bins and a 1 s unit")
    func aligned() {
        let waits = [StormPrediction.Wait](repeating: .init(disconnected: .zero, failures: 1), count: 10_000)
        let prediction = StormPrediction(waits: waits, policy: .spec, bin: .milliseconds(100))
        #expect(prediction.bins.count <= 13)
        for index in 0..<13 {
            let expected = index < prediction.bins.count ? prediction.bins[index] : 0
            #expect(abs(expected - ((8..<12).contains(index) ? 2_500 : 0)) < 1e-6, "bin \(index)")
        }
        #expect(abs(prediction.peak - 2_500) < 1e-6)
    }

    @Test("Waits that start half a bin late straddle the edges: the bins hold the same total, spread over five")
    func shifted() {
        let waits = [StormPrediction.Wait](
            repeating: .init(disconnected: .milliseconds(50), failures: 1), count: 1_000)
        let prediction = StormPrediction(waits: waits, policy: .spec, bin: .milliseconds(100))
        #expect(abs(prediction.bins[8] - 125) < 1e-6)
        #expect(abs(prediction.bins[9] - 250) < 1e-6)
        #expect(abs(prediction.bins[12] - 125) < 1e-6)
        #expect(abs(prediction.bins.reduce(0, +) - 1_000) < 1e-6)
    }

    @Test("A failed attempt adds its own later wait, three units long, at a third of the density")
    func secondWave() {
        let prediction = StormPrediction(
            waits: [.init(disconnected: .seconds(2), failures: 2)], policy: .spec, bin: .milliseconds(100))
        // (2^2 − 1) × 1 s × [0.8, 1.2] after 2 s: 4.4 s to 5.6 s, 1/12 per bin.
        #expect(abs(prediction.bins[44] - 1.0 / 12) < 1e-9)
        #expect(abs(prediction.bins[55] - 1.0 / 12) < 1e-9)
        #expect(prediction.bins[43] == 0)
        #expect(abs(prediction.peak - 1.0 / 12) < 1e-9)
    }

    @Test("The latest a session can be back: its detection, 1.2 units, then the connect time")
    func allBack() {
        let bound = StormPrediction.allBack(detected: .milliseconds(30), policy: .spec, connect: .milliseconds(500))
        #expect(bound == .milliseconds(1_730))
    }
}
