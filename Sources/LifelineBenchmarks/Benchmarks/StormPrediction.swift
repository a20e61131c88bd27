import LifelineCore

/// What the retry formula predicts for a reconnect storm, bin by bin.
///
/// After the server drops every socket, each session notices at its own moment `d` after the drop and enters
/// DISCONNECTED with failure count `x`; its retry comes `(2^x − 1) × unit × U(1 − j, 1 + j)` later, so its next
/// arrival at the server is uniform on `[d + (1 − j) n, d + (1 + j) n]` with `n = (2^x − 1) × unit`. The expected
/// arrivals in a bin `[k w, (k + 1) w)` after the drop are the sum, over every such wait, of the part of its
/// interval the bin covers. The bins start at the drop (the server marks them there), so the alignment of the
/// intervals with the bins is part of the prediction, and a session that fails again (a refused or failed
/// attempt) adds a later wait of its own.
///
/// With every `d` zero and one wait per session, a bin inside the interval expects `N w / (2 j unit)`: for
/// 10 000 sessions, a 1 s unit, ±20 % and 100 ms bins, 2 500 — the bins from 0.8 s to 1.2 s hold 2 500 each.
struct StormPrediction: Sendable, Equatable {
    /// One wait: when the session entered DISCONNECTED, after the drop, and with which failure count.
    struct Wait: Sendable, Equatable {
        var disconnected: Duration
        var failures: Int
    }

    /// Expected arrivals per bin, from the drop.
    var bins: [Double]

    /// The largest expected bin.
    var peak: Double { bins.max() ?? 0 }

    /// The prediction for these waits.
    ///
    /// - Parameters:
    ///   - waits: Every DISCONNECTED after the drop.
    ///   - policy: The sessions' retry policy.
    ///   - bin: The width of a bin.
    init(waits: [Wait], policy: RetryPolicy, bin: Duration) {
        let width = bin.secondsValue
        var bins: [Double] = []
        for wait in waits {
            let nominal = policy.nominalDelay(failures: wait.failures).secondsValue
            let start = wait.disconnected.secondsValue + nominal * (1 - policy.jitter)
            let end = wait.disconnected.secondsValue + nominal * (1 + policy.jitter)
            guard end > start else { continue }
            let last = Int((end / width).rounded(.down))
            if bins.count <= last { bins.append(contentsOf: repeatElement(0, count: last + 1 - bins.count)) }
            for index in max(0, Int((start / width).rounded(.down)))...last {
                let overlap = min(end, Double(index + 1) * width) - max(start, Double(index) * width)
                if overlap > 0 { bins[index] += overlap / (end - start) }
            }
        }
        self.bins = bins
    }

    /// The latest a session that noticed the drop `detected` after it may be CONNECTED again with one retry: its
    /// longest first delay, `(1 + j) × unit`, then `connect`.
    static func allBack(detected: Duration, policy: RetryPolicy, connect: Duration) -> Duration {
        detected + policy.nominalDelay(failures: 1) * (1 + policy.jitter) + connect
    }
}
