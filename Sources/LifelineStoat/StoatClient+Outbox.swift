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

    /// Queues a message with files for a channel in the account's outbox: the files are uploaded to the file
    /// server the API's root document names, then the message is posted once with their ids.
    ///
    /// Each file's path, size and SHA-256 are read now and kept with the entry in the account's store (the file
    /// itself is not copied: leave it in place until the message is sent). The uploads are steps of the send:
    /// made when the API may answer, one file at a time, with progress (``OutboxEntry/progress``, the entry
    /// `sending`); an upload interrupted by a lost answer, a network failure or a restart is made again, and an
    /// upload done is never repeated (its id is stored). A file changed on disk since it was queued fails the
    /// entry (``OutboxEntry/Failure/Code/fileChanged``) — other bytes are never sent in its place —, as does one
    /// over the server's limit (`FileTooLarge`: the root document's `features.limits` where it states one, before
    /// a byte is sent, else the file server's `422`), with the limit in the reason. The token goes only to the
    /// API and that file server (``StoatFileServer``). See <doc:LifelineStoat#Files>.
    ///
    /// ```swift
    /// let entry = try await client.send(
    ///     OutgoingMessage(content: "the plan"), files: [OutgoingFile(path: "/tmp/plan.pdf")], to: channel)
    /// ```
    ///
    /// - Parameters:
    ///   - message: The message; ids already in its ``OutgoingMessage/attachments`` are kept, the uploaded
    ///     files' ids follow them.
    ///   - files: The files to upload, in order.
    ///   - channel: The channel's id.
    /// - Returns: The entry, `queued` (or further along, if it was already queued).
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/invalidRequest`` for a file that cannot be
    ///   read or an unusable idempotency key, ``StoatClientErrorCode/storageFailed`` when the account's store
    ///   cannot keep it (nothing is queued then).
    @discardableResult
    public func send(
        _ message: OutgoingMessage, files: [OutgoingFile], to channel: String
    ) async throws(StoatClientError) -> OutboxEntry {
        let entry = try await outboxEngine.send(message, files: files, to: channel)
        await clearDraftAfterSend(in: channel)
        return entry
    }

    // MARK: - Acting on messages through the outbox

    /// The channel of a message the client holds in a cached history, or `nil` when it holds none with this id:
    /// where an action on the message goes (``edit(_:in:to:)``…) when only its id is at hand.
    ///
    /// - Parameter message: The message's id.
    public func channel(ofMessage message: String) -> String? {
        cache.read { $0.channel(holding: message) }
    }

    /// Replaces the text of a message the user sent, through the outbox.
    ///
    /// The edit is queued like a send (kept in the account's store first when one is attached) and made when
    /// the API may answer, after the channel's earlier entries, exactly once in effect: an answer that does not
    /// come is never a reason to repeat it blindly — the message is read back first
    /// (`GET /channels/{c}/messages/{m}`), and an edit it already shows is `sent`. A refusal (`CannotEditMessage`
    /// for another user's message, `NotFound` for one that is gone, `MissingPermission`) ends the entry `failed`
    /// with the server's reason. Until then the models show the new text as pending
    /// (``ChannelModel/pendingEdits``). See <doc:LifelineStoat#Actions-on-messages>.
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - channel: Its channel's id.
    ///   - text: The new text, 1 to 2 000 characters.
    /// - Returns: The entry (``OutboxEntry/Kind/edit``), `queued` or further along.
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/invalidRequest`` for an empty text or id,
    ///   ``StoatClientErrorCode/storageFailed`` when the account's store cannot keep it (nothing is queued then).
    @discardableResult
    public func edit(
        _ message: String, in channel: String, to text: String
    ) async throws(StoatClientError)
        -> OutboxEntry
    {
        try await outboxEngine.act(.edit, on: message, in: channel, text: text)
    }

    /// Deletes a message through the outbox: the user's own, or another user's where the user has
    /// `ManageMessages` in the channel (stoatchat checks it; without it the entry ends `failed`,
    /// `MissingPermission`).
    ///
    /// A message already gone (the server answers `NotFound`, or reading it back finds nothing) counts as
    /// deleted: the entry is `sent`. Until then the models show the message as being deleted
    /// (``ChannelModel/pendingDeletions``).
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - channel: Its channel's id.
    /// - Returns: The entry (``OutboxEntry/Kind/delete``).
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/invalidRequest`` for an empty id,
    ///   ``StoatClientErrorCode/storageFailed`` when the account's store cannot keep it.
    @discardableResult
    public func delete(_ message: String, in channel: String) async throws(StoatClientError) -> OutboxEntry {
        try await outboxEngine.act(.delete, on: message, in: channel)
    }

    /// Adds the user's reaction to a message through the outbox.
    ///
    /// stoatchat answers a reaction the user already has as it answered the first: it is `sent`. After a lost
    /// answer, a message read back with the user's reaction is `sent` without a second request. Until then the
    /// models show the reaction as pending (``ChannelModel/pendingReactions``).
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - channel: Its channel's id.
    ///   - emoji: A Unicode emoji, or a custom emoji's id.
    /// - Returns: The entry (``OutboxEntry/Kind/react``).
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/invalidRequest`` for an empty id or emoji,
    ///   ``StoatClientErrorCode/storageFailed`` when the account's store cannot keep it.
    @discardableResult
    public func react(
        to message: String, in channel: String, with emoji: String
    ) async throws(StoatClientError)
        -> OutboxEntry
    {
        try await outboxEngine.act(.react, on: message, in: channel, emoji: emoji)
    }

    /// Takes the user's reaction back through the outbox.
    ///
    /// A reaction that is not there (stoatchat answers `NotFound`, for a reaction or a message that is gone)
    /// counts as taken back: the entry is `sent`.
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - channel: Its channel's id.
    ///   - emoji: The emoji.
    /// - Returns: The entry (``OutboxEntry/Kind/unreact``).
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/invalidRequest`` for an empty id or emoji,
    ///   ``StoatClientErrorCode/storageFailed`` when the account's store cannot keep it.
    @discardableResult
    public func unreact(
        to message: String, in channel: String, with emoji: String
    ) async throws(StoatClientError)
        -> OutboxEntry
    {
        try await outboxEngine.act(.unreact, on: message, in: channel, emoji: emoji)
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

    /// The outbox's sends in one channel, in order: the messages to show as pending there (its actions on
    /// messages are ``pendingActions(in:)``).
    ///
    /// - Parameter channel: The channel's id.
    public func pendingMessages(in channel: String) -> [OutboxEntry] {
        outboxEngine.entries.filter { $0.channel == channel && $0.kind == .send }
    }

    /// The outbox's actions on messages in one channel — edits, deletions, reactions and their removals, `queued`,
    /// `sending` or `failed` — in order: what to show as pending on the messages they act on.
    ///
    /// - Parameter channel: The channel's id.
    public func pendingActions(in channel: String) -> [OutboxEntry] {
        outboxEngine.entries.filter { $0.channel == channel && $0.kind != .send }
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
