/// The idle check of a socket's deliveries (``StoatClient/Configuration/deliveryCheck``), as pure bookkeeping: the
/// newest messages of an open or recently active channel, read over REST now and then while the socket is quiet,
/// against what the socket delivered.
///
/// A ghost socket (stoatchat#649) answers every `Ping` and delivers nothing; a passive reader sends nothing whose
/// echo would expose it. So while CONNECTED, once the connection's catch-up has completed (before it, the cache may
/// lack what was posted while the client was away), and only while no event has arrived for a whole interval, one
/// channel at a time — the open ones and the two most recently active chats, in turn — has its newest page read. A
/// message on it that the cache does not hold, that this socket did not deliver, and that is newer than what an
/// earlier reading of that channel saw — on a first reading, than the newest message the cache holds of it — is
/// owed: the session's delivery deadline watches for its event, and a socket that does not bring it is left as deaf
/// (`deliveryStalled`). Each message is owed at most once, whatever the connection; the first reading of a channel
/// the cache holds nothing of only notes where it stands. A webhook's message is never owed — the
/// new events server delivers it to no socket — it joins the history instead.
///
/// Not `last_message_id`: stoatchat writes it seconds late, so it would name neither a message just posted nor,
/// reliably, the newest one.
struct DeliveryProbe: Sendable {
    /// The messages a check asks for: the newest of the channel.
    static let pageSize = 10

    private var connection: UInt64?
    /// The connection whose catch-up completed: the cache holds what was posted before it.
    private var caughtUp: UInt64?
    /// When the socket last delivered an event (a `Pong` aside), on the client's clock.
    private var lastEvent: Duration?
    /// The newest message the socket delivered in each channel, on this connection.
    private var newestDelivered: [String: String] = [:]
    /// The newest message each channel's last reading saw, whatever the connection: nothing at or below it is
    /// owed again.
    private var checkedUpTo: [String: String] = [:]
    /// Which candidate the next check reads.
    private var turn = 0
    /// The message owed, if one is.
    private(set) var owed: String?

    /// The session is CONNECTED on `generation`, or (`nil`) not: what was seen belongs to the old connection.
    mutating func connectionChanged(_ generation: UInt64?, now: Duration? = nil) {
        guard generation != connection else { return }
        connection = generation
        lastEvent = now
        newestDelivered = [:]
        owed = nil
    }

    /// The catch-up of connection `generation` completed (possibly reported before the connection is).
    mutating func caughtUpCompleted(generation: UInt64) {
        caughtUp = generation
    }

    /// The socket delivered an event (not a `Pong`): it is not quiet.
    mutating func eventArrived(now: Duration) {
        lastEvent = now
    }

    /// The socket delivered `message`; returns the key to report seen when it was the one owed.
    mutating func delivered(_ message: Message) -> String? {
        guard connection != nil else { return nil }
        if message.id > newestDelivered[message.channel] ?? "" { newestDelivered[message.channel] = message.id }
        guard owed == message.id else { return nil }
        owed = nil
        return message.id
    }

    /// The channel the next check reads, if one is due at `now`: CONNECTED on `generation`, caught up, nothing owed,
    /// and no event for `interval`. `candidates` are the open channels, then the most recently active chats.
    mutating func nextCheck(
        generation: UInt64, now: Duration, interval: Duration, candidates: [String]
    ) -> String? {
        guard connection == generation, caughtUp == generation, owed == nil, !candidates.isEmpty else { return nil }
        guard let lastEvent, now - lastEvent >= interval else { return nil }
        defer { turn &+= 1 }
        return candidates[turn % candidates.count]
    }

    /// What a check of `channel` found.
    struct Finding: Sendable, Equatable {
        /// The message the socket owes, if any.
        var owed: String?
        /// Webhooks' messages the cache did not hold: they join the history, and are never owed.
        var webhookMessages: [Message] = []
    }

    /// A reading of `channel`'s newest messages (`page`, any order) on connection `generation`; `held` says which
    /// of them the cache holds; `newestHeld` is the newest message of the channel it holds (the empty id for one it
    /// knows empty), `nil` when it cannot say (no catch-up runs, or it holds nothing of the channel).
    mutating func checked(
        channel: String, page: [Message], generation: UInt64, newestHeld: String?, held: (String) -> Bool
    ) -> Finding {
        guard connection == generation else { return Finding() }
        let ascending = page.filter { $0.channel == channel }.sorted { $0.id < $1.id }
        // What an earlier reading saw (the empty id for a channel it found empty: its first message is newer); on
        // a first reading, the newest message the cache holds: the settled catch-up brought what came before this
        // connection, so what is newer and neither held nor delivered is the socket's to bring.
        let seen = checkedUpTo[channel] ?? newestHeld
        checkedUpTo[channel] = max(seen ?? "", ascending.last?.id ?? "")
        var finding = Finding()
        for message in ascending where !held(message.id) {
            if message.webhook != nil {
                finding.webhookMessages.append(message)
                continue
            }
            // A first reading of a channel the cache holds nothing of only notes where it stands.
            guard let seen, message.id > seen, message.id > newestDelivered[channel] ?? "", owed == nil else {
                continue
            }
            owed = message.id
            finding.owed = message.id
        }
        return finding
    }
}
