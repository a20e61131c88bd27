/// stoatchat's rate-limit storage (`crates/core/ratelimits/src/ratelimiter.rs`): a fixed window per bucket key
/// that starts at the bucket's first request. Pure: time comes in as milliseconds since the epoch.
struct RateLimiter: Sendable {
    /// What one request met: the headers' values, and whether it may go ahead.
    struct Outcome: Sendable, Equatable {
        /// `X-RateLimit-Bucket`: the bucket key.
        var key: UInt64
        /// `X-RateLimit-Limit`.
        var limit: Int
        /// `X-RateLimit-Remaining`.
        var remaining: Int
        /// `X-RateLimit-Reset-After`, in milliseconds; a 429's `retry_after`.
        var resetAfter: Int64
        /// Whether the request may go ahead.
        var allowed: Bool
    }

    private struct Entry {
        var used: Int
        var reset: Int64
    }

    private var entries: [UInt64: Entry] = [:]

    /// How many buckets the limiter holds before it forgets those whose window has ended (stoatchat's map keeps
    /// them; a server that runs for days with ever new callers and resources must not).
    static let prunedAbove = 10_000

    /// The size at which the next pruning happens: twice what the last one kept, so that pruning costs an
    /// amortised constant per request however many windows are live.
    private var pruneAt = prunedAbove

    /// How many buckets it holds.
    var count: Int { entries.count }

    /// stoatchat's bucket key: SipHash-1-3 with zero keys (Rust's `DefaultHasher`) over the identifier, the
    /// bucket and the resource.
    static func key(identifier: String, bucket: String, resource: String?) -> UInt64 {
        var hasher = SipHasher(compressionRounds: 1, finalizationRounds: 3)
        hasher.write(Array(identifier.utf8))
        hasher.write(Array(bucket.utf8))
        if let resource { hasher.write(Array(resource.utf8)) }
        return hasher.finish()
    }

    /// Counts one request against `key` at `now` (milliseconds), as `Ratelimiter::from` does.
    mutating func take(key: UInt64, limit: Int, now: Int64, window: Int64) -> Outcome {
        if entries.count >= pruneAt, entries[key] == nil {
            // An ended window is the same as no entry: the next request starts a new one.
            entries = entries.filter { $0.value.reset >= now }
            pruneAt = max(Self.prunedAbove, entries.count * 2)
        }
        var entry = entries[key] ?? Entry(used: 0, reset: now + window)
        let remaining = now > entry.reset ? limit : max(0, limit - entry.used)
        guard remaining > 0 else {
            return Outcome(key: key, limit: limit, remaining: 0, resetAfter: max(0, entry.reset - now), allowed: false)
        }
        if now > entry.reset {
            entry = Entry(used: 1, reset: now + window)
        } else {
            entry.used += 1
        }
        entries[key] = entry
        return Outcome(
            key: key, limit: limit, remaining: remaining - 1, resetAfter: max(0, entry.reset - now), allowed: true)
    }

    /// Forgets every bucket.
    mutating func reset() { entries = [:] }
}

/// SipHash with zero keys and a choice of rounds: SipHash-1-3 is Rust's `DefaultHasher`, SipHash-2-4 the
/// reference algorithm the tests check against.
struct SipHasher {
    private var v0: UInt64 = 0x736f_6d65_7073_6575
    private var v1: UInt64 = 0x646f_7261_6e64_6f6d
    private var v2: UInt64 = 0x6c79_6765_6e65_7261
    private var v3: UInt64 = 0x7465_6462_7974_6573
    private var tail: [UInt8] = []
    private var length = 0
    private let compressionRounds: Int
    private let finalizationRounds: Int

    init(compressionRounds: Int, finalizationRounds: Int, key: (UInt64, UInt64) = (0, 0)) {
        self.compressionRounds = compressionRounds
        self.finalizationRounds = finalizationRounds
        v0 ^= key.0
        v1 ^= key.1
        v2 ^= key.0
        v3 ^= key.1
    }

    private mutating func round() {
        v0 &+= v1
        v1 = v1.rotatedLeft(13)
        v1 ^= v0
        v0 = v0.rotatedLeft(32)
        v2 &+= v3
        v3 = v3.rotatedLeft(16)
        v3 ^= v2
        v0 &+= v3
        v3 = v3.rotatedLeft(21)
        v3 ^= v0
        v2 &+= v1
        v1 = v1.rotatedLeft(17)
        v1 ^= v2
        v2 = v2.rotatedLeft(32)
    }

    private mutating func compress(_ word: UInt64) {
        v3 ^= word
        for _ in 0..<compressionRounds { round() }
        v0 ^= word
    }

    /// Adds bytes to the message (successive writes concatenate).
    mutating func write(_ bytes: [UInt8]) {
        length += bytes.count
        tail.append(contentsOf: bytes)
        while tail.count >= 8 {
            var word: UInt64 = 0
            for index in 0..<8 { word |= UInt64(tail[index]) << (8 * UInt64(index)) }
            compress(word)
            tail.removeFirst(8)
        }
    }

    /// The hash of everything written.
    mutating func finish() -> UInt64 {
        var last = UInt64(length & 0xFF) << 56
        for (index, byte) in tail.enumerated() { last |= UInt64(byte) << (8 * UInt64(index)) }
        compress(last)
        v2 ^= 0xFF
        for _ in 0..<finalizationRounds { round() }
        return v0 ^ v1 ^ v2 ^ v3
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
