// The facet of the machine that watches a delivery the socket owes (`DeliveryWatchPolicy`).

extension SessionMachine {
    // MARK: - Deliveries the socket owes

    /// The server stored something whose event the live connection must deliver — the user's own message,
    /// which the REST answer carried — so the socket has until the delivery deadline to bring it
    /// (``DeliveryWatchPolicy``): the deadline's timer is armed, as data.
    ///
    /// One delivery is watched at a time: while one is awaited, another changes nothing (the first one's
    /// deadline already proves the socket). A watch needs the connection the fact was observed on:
    /// `generation` is the connection that was CONNECTED when the send started, so a send that straddled a
    /// reconnect (its event may have gone to the old socket) is not watched. The machine never resets or
    /// counts failures here; only the firing deadline is a TEMPORARY_FAILURE.
    ///
    /// - Parameters:
    ///   - key: What the runtime names the delivery by (the message's nonce), for ``deliverySeen(_:)``.
    ///   - generation: The connection the send started on.
    ///   - generator: The random source for the deadline's jitter.
    /// - Returns: ``Output/updated(actions:)`` with the timer to arm, or ``Output/ignored`` outside CONNECTED,
    ///   for another connection, while a delivery is already watched, or with the watch disabled.
    public mutating func deliveryExpected(
        _ key: String, generation: UInt64, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard deliveryWatchPolicy.isEnabled, case .connected(_, let live) = current, live == generation,
            deliveryWatch == nil
        else { return .ignored }
        let delay = deliveryWatchPolicy.delay(using: &generator)
        let timer = SessionTimer(id: nextTicket(), purpose: .deliveryWatch, delay: delay)
        deliveryWatch = DeliveryWatch(key: key, timer: timer.id, delay: delay)
        return .updated(actions: [arm(timer)])
    }

    /// The socket delivered what ``deliveryExpected(_:generation:using:)`` named `key`: its deadline's timer is
    /// cancelled.
    ///
    /// - Returns: ``Output/updated(actions:)`` with the cancellation, or ``Output/ignored`` when `key` is not the
    ///   delivery awaited (another message, or one whose deadline already passed).
    public mutating func deliverySeen(_ key: String) -> Output {
        guard let watch = deliveryWatch, watch.key == key else { return .ignored }
        deliveryWatch = nil
        return .updated(actions: disarmed(watch.timer))
    }
}
