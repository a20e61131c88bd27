/// A deterministic random number generator for tests: the same seed gives the same sequence.
///
/// SplitMix64 (Steele, Lea and Flood, 2014): fast, 64 bits of state, and passes BigCrush — more than
/// enough to drive retry jitter and random walks reproducibly. Not for cryptography.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator.
    ///
    /// - Parameter seed: The seed; print it in a failing test's message so the run can be repeated.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
