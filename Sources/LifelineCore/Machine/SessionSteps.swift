/// The transitions one accepted event took: one, or two when entering DISCONNECTED with the device
/// offline chained DEVICE_OFFLINE.
///
/// Stored as plain values, so that the allocation-free form returns nothing that needs counting; the
/// transitions are made when asked for, without a cause (the caller has the event's).
@usableFromInline
package struct SessionSteps: Sendable, Hashable {
    @usableFromInline
    struct Step: Sendable, Hashable {
        var from: SessionState
        var event: SessionEvent.Kind
        var to: SessionState
        var failures: Int

        var transition: SessionTransition {
            SessionTransition(from: from, event: event, to: to, failures: failures)
        }
    }

    @usableFromInline var firstStep: Step
    @usableFromInline var chainedStep: Step?

    /// The transition the event took.
    package var first: SessionTransition { firstStep.transition }
    /// The transition the target's entry chained, if any.
    package var chained: SessionTransition? { chainedStep?.transition }
    /// Whether the target's entry chained a second transition.
    package var isChained: Bool { chainedStep != nil }

    /// The transitions in order.
    package var transitions: [SessionTransition] {
        chainedStep.map { [first, $0.transition] } ?? [first]
    }
}
