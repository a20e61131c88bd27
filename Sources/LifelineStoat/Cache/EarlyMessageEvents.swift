/// Deletions and changes that arrived before their message, remembered (bounded) until it comes.
///
/// Stoat's new events server (`stoatchat/gateway`) hands each event to one of a hundred parallel processors
/// (`consumer.ex`), so a `MessageDelete` or `MessageUpdate` may overtake its `Message`. The cache remembers
/// such an event for a message it does not hold; when the message then arrives (live, or in a page), a deleted
/// one is not added — it never reaches the app — and the changes are applied to it first. The oldest entries
/// are forgotten past ``limit`` (an edit of an old message the cache never held looks the same, and must not
/// grow the memory).
struct EarlyMessageEvents: Sendable, Equatable {
    /// How many messages are remembered at most.
    static let limit = 512

    /// What is remembered of one message.
    struct Entry: Sendable, Equatable {
        var deleted = false
        var updates: [AccountCache.HistoryFetch.Update] = []
    }

    private var entries: [String: Entry] = [:]
    /// The ids in the order they were first remembered, oldest first.
    private var order: [String] = []

    /// How many messages are remembered.
    var count: Int { entries.count }

    /// `id` was deleted before it arrived.
    mutating func deleted(_ id: String) {
        remember(id) { $0.deleted = true }
    }

    /// `update` came before its message.
    mutating func changed(_ update: AccountCache.HistoryFetch.Update) {
        remember(update.id) { $0.updates.append(update) }
    }

    /// What was remembered of `id`, forgotten now.
    mutating func take(_ id: String) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        order.removeAll { $0 == id }
        return entry
    }

    private mutating func remember(_ id: String, _ body: (inout Entry) -> Void) {
        if entries[id] == nil {
            order.append(id)
            if order.count > Self.limit { entries[order.removeFirst()] = nil }
        }
        body(&entries[id, default: Entry()])
    }
}
