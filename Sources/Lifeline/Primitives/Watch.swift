/// What an engine watches on its one timer: a key, nothing else. The deadline is the timer's; what the key
/// means is the owner's (a book's ticket for the deadline and outbox engines, a channel for the
/// acknowledgements). One type for every engine, so a watch reads the same wherever it is kept.
package struct Watch<Key: Hashable & Sendable>: Identifiable, Sendable, Hashable {
    /// The key the owner gave the watch.
    package var id: Key

    /// Creates a watch of `id`.
    package init(id: Key) {
        self.id = id
    }
}
