extension StoatClient {
    // MARK: - Sending through the outbox

    /// Queues a message for a channel in the account's outbox, and returns once it is queued — kept in the
    /// account's store first when one is attached, so it survives a restart or a crash from then on. It does
    /// not wait for delivery: observe the entry (``outboxEvents``, ``outboxUpdates``, ``outboxState(of:)``).
    ///
    /// The outbox posts when the session is CONNECTED, one message at a time per channel in the order they
    /// were queued, and delivers each exactly once: stoatchat consumes an `Idempotency-Key` before the route
    /// runs and echoes it as the message's `nonce`, so an answer that does not come, a `409` of any shape or a
    /// network failure is never posted again blindly — the message is looked for first (its event on the
    /// socket, or the channel's messages). A slowmode is waited out, a definite refusal (a missing permission,
    /// a timeout in the server, an empty or too long message, an unknown channel) is `failed` with its reason.
    /// See <doc:LifelineStoat#The-outbox>.
    ///
    /// The message's ``OutgoingMessage/idempotencyKey`` (a fresh UUID by default) names the entry — its
    /// ``OutboxEntry/nonce`` — and is the key of its first post; sending the same value again returns the entry
    /// already queued. A message sent this way joins the channel's history when the server has it.
    ///
    /// Once the message is queued, the channel's draft (``draft(in:)``) is cleared: its text is in the outbox.
    ///
    /// - Parameters:
    ///   - message: The message; its body `nonce` is not sent (stoatchat would refuse a reused one with
    ///     `InvalidOperation`, and the key is echoed as the nonce anyway).
    ///   - channel: The channel's id.
    /// - Returns: The entry, `queued` (or further along, if it was already queued).
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/invalidRequest`` for an idempotency key
    ///   that cannot name an entry (1 to 48 letters, digits, `-` or `_`), ``StoatClientErrorCode/storageFailed``
    ///   when the account's store cannot keep it (nothing is queued then).
    @discardableResult
    public func send(_ message: OutgoingMessage, to channel: String) async throws(StoatClientError) -> OutboxEntry {
        let entry = try await outboxEngine.send(message, to: channel)
        await clearDraftAfterSend(in: channel)
        return entry
    }

    /// Drops a `queued` or `failed` entry from the outbox, and from the account's store: the user's word.
    ///
    /// - Parameter nonce: The entry's nonce.
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/outboxRefused`` when no entry has this nonce
    ///   or it is being sent (its post or look-up is in flight, and the server may have it).
    public func discard(_ nonce: String) throws(StoatClientError) {
        try outboxEngine.discard(nonce)
    }

    /// Sends a `failed` entry again, with a new idempotency key.
    ///
    /// - Parameter nonce: The entry's nonce.
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/outboxRefused`` when no entry has this nonce
    ///   or it has not failed.
    public func resend(_ nonce: String) throws(StoatClientError) {
        try outboxEngine.resend(nonce)
    }

    /// The outbox's entries — `queued`, `sending` or `failed` — in the order they were queued; an entry leaves
    /// once `sent`.
    public var outbox: [OutboxEntry] { outboxEngine.entries }

    /// The outbox's entries in one channel, in order: the messages to show as pending there.
    ///
    /// - Parameter channel: The channel's id.
    public func pendingMessages(in channel: String) -> [OutboxEntry] {
        outboxEngine.entries.filter { $0.channel == channel }
    }

    /// The outbox after every change, starting with the current entries; a slow observer skips to the newest
    /// (``CacheObservation``).
    public var outboxUpdates: CacheObservation<[OutboxEntry]> {
        let engine = outboxEngine
        return CacheObservation(signals: cache.signals, key: OutboxEngine.signalKey) { engine.entries }
    }

    /// Every change of an entry's state from the moment this property is read (and the entries read back from
    /// the store at sign-in, and the stored entries that cannot be read), until ``run()`` ends. Each read starts
    /// a new subscription that receives every event.
    public var outboxEvents: AsyncStream<OutboxEvent> { outboxEngine.subscribe() }

    /// Where an entry stands: in the outbox, or its last state if it left lately (`sent`, or `failed` by a
    /// logout); `nil` for a nonce the client does not know.
    ///
    /// - Parameter nonce: The entry's nonce.
    public func outboxState(of nonce: String) -> OutboxEntry.State? {
        outboxEngine.state(of: nonce)
    }

    /// Waits until an entry is `sent` or `failed`, and returns that state; `nil` when the client does not know
    /// the nonce or stops first.
    ///
    /// - Parameter nonce: The entry's nonce.
    public func delivery(of nonce: String) async -> OutboxEntry.State? {
        let events = outboxEvents
        if let state = outboxState(of: nonce) {
            switch state {
            case .sent, .failed: return state
            case .queued, .sending: break
            }
        } else {
            return nil
        }
        for await event in events {
            guard case .changed(let entry) = event, entry.nonce == nonce else { continue }
            switch entry.state {
            case .sent, .failed: return entry.state
            case .queued, .sending: continue
            }
        }
        return nil
    }
}
