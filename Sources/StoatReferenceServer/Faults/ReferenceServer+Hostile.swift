extension ReferenceServer {
    /// Turns the `hostile` fault on or off: a server stating absurd numbers wherever Stoat states one.
    ///
    /// While on:
    /// - every socket (listening when the fault is turned on, or once its `Ready` is sent) receives a `UserSlowmodes` whose counts are
    ///   2^63 − 1, 2^64 − 1, −1, 1e300, −2^63 and 0.5 seconds, and, for each of the user's servers, a
    ///   `ServerMemberUpdate` timing their member out until 9999-12-31 (joined 0001-01-01) — frames only: the
    ///   server's data is unchanged, so a client that asks finds no slowmode and no timeout;
    /// - every Stoat REST answer states `X-RateLimit-Limit: 2^64 − 1`, `-Remaining: 2^63 − 1` and
    ///   `-Reset-After: 2^63 − 1`, and the next `rejections` requests are refused `429 {"retry_after": 1e300}`
    ///   with `-Remaining: −2^63` and `-Reset-After: 1e300`;
    /// - `GET /api/health` states `poll_rate: 1e300`.
    ///
    /// ``resetFaults()`` turns it off.
    ///
    /// - Parameters:
    ///   - enabled: Whether the fault is on.
    ///   - rejections: How many Stoat REST requests to refuse, from now (calling again while on changes only
    ///     this count).
    public func setHostile(_ enabled: Bool, rejections: Int = 0) async {
        await state.setHostile(enabled, rejections: rejections)
    }
}
