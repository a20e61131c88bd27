// The facet of the machine that watches a delivery the socket owes (`DeliveryWatchPolicy`).

extension SessionCore {
    // MARK: - Deliveries the socket owes

    /// ``SessionMachine`` documents `deliveryExpected`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func deliveryExpected(
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

    /// ``SessionMachine`` documents `deliverySeen`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func deliverySeen(_ key: String) -> Output {
        guard let watch = deliveryWatch, watch.key == key else { return .ignored }
        deliveryWatch = nil
        return .updated(actions: disarmed(watch.timer))
    }
}
