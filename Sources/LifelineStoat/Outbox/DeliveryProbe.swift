/// The optional idle check of a socket's deliveries (``StoatClient/Configuration/deliveryCheck``), as pure
/// bookkeeping: an open channel's `last_message_id`, read over REST now and then, against what the socket
/// delivered.
///
/// The first reading on a connection is the baseline (`last_message_id` is set by a background task in
/// stoatchat, so it may still name a message from before the connection). A later reading that names a newer
/// message than the baseline and than every message the socket delivered in the channel names a message
/// posted while the socket was live that it has not delivered: it is owed, on the session's delivery deadline
/// (the event may still be on its way), and its arrival is reported as seen.
struct DeliveryProbe: Sendable {
    private var connection: UInt64?
    private var baselines: [String: String] = [:]
    /// The newest message the socket delivered in each channel, on this connection.
    private var newestDelivered: [String: String] = [:]
    /// The message owed, if one is.
    private(set) var owed: String?

    /// The session is CONNECTED on `generation`, or (`nil`) not: what was read belongs to the old connection.
    mutating func connectionChanged(_ generation: UInt64?) {
        guard generation != connection else { return }
        connection = generation
        baselines = [:]
        newestDelivered = [:]
        owed = nil
    }

    /// The socket delivered `message`; returns the key to report seen when it was the one owed.
    mutating func delivered(_ message: Message) -> String? {
        guard connection != nil else { return nil }
        if message.id > newestDelivered[message.channel] ?? "" { newestDelivered[message.channel] = message.id }
        guard owed == message.id else { return nil }
        owed = nil
        return message.id
    }

    /// A reading of `channel`'s `last_message_id` on connection `generation`; returns the message the socket
    /// owes, if any.
    mutating func checked(channel: String, lastMessageID: String?, generation: UInt64) -> String? {
        guard connection == generation else { return nil }
        // A channel without a message yet reads as the empty id: its first message is newer.
        let lastMessageID = lastMessageID ?? ""
        defer { baselines[channel] = max(lastMessageID, baselines[channel] ?? "") }
        guard let baseline = baselines[channel], lastMessageID > baseline else { return nil }
        guard lastMessageID > newestDelivered[channel] ?? "", owed == nil else { return nil }
        owed = lastMessageID
        return lastMessageID
    }
}
