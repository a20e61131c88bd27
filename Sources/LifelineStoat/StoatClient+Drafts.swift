extension StoatClient {
    // MARK: - Drafts

    /// Every channel's draft — the composer's text the user has not sent — by channel id.
    ///
    /// Drafts are kept in the account's encrypted store (LifelineStoatStore's sign-in attaches it) and read back
    /// at the next sign-in; without a store they live as long as the process and the session. A draft is cleared
    /// when a message is queued for its channel (``send(_:to:)-(OutgoingMessage,_)``): the text is then in the
    /// outbox, which keeps it until the server has it.
    public var drafts: [String: String] { draftEngine.all }

    /// A channel's draft; empty when it has none.
    ///
    /// - Parameter channel: The channel's id.
    public func draft(in channel: String) -> String {
        draftEngine.text(in: channel)
    }

    /// Sets a channel's draft and returns once the account's store holds it (at once, without a store); an
    /// empty text clears it.
    ///
    /// - Parameters:
    ///   - text: The composer's text.
    ///   - channel: The channel's id.
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/storageFailed`` when the store cannot keep it
    ///   (the draft stays in memory, and is written again at its next change).
    public func setDraft(_ text: String, in channel: String) async throws(StoatClientError) {
        do {
            try await draftEngine.store(text, in: channel)
        } catch {
            throw StoatClientError(code: .storageFailed, message: "The draft could not be stored", cause: error)
        }
    }

    /// Sets a channel's draft in memory at once and has ``run()`` write it to the account's store soon after —
    /// for a text field that changes at every keystroke: the writes coalesce, and the last one stores the
    /// newest text. ``ChannelModel/draft`` calls it.
    ///
    /// - Parameters:
    ///   - text: The composer's text; empty clears the draft.
    ///   - channel: The channel's id.
    public func keepDraft(_ text: String, in channel: String) {
        draftEngine.keep(text, in: channel)
    }

    /// The drafts after every change, starting with the current ones; a slow observer skips to the newest.
    public var draftUpdates: CacheObservation<[String: String]> {
        let engine = draftEngine
        return CacheObservation(signals: cache.signals, key: DraftEngine.signalKey) { engine.all }
    }

    /// Makes `persistence` the drafts' store and reads its drafts (a sign-in through the account's store).
    package func attachDrafts(_ persistence: any DraftPersistence) async {
        await draftEngine.attach(persistence)
    }

    /// Clears a channel's draft once a message for it is queued; a store that fails is logged, not thrown: the
    /// message is queued.
    func clearDraftAfterSend(in channel: String) async {
        guard !draftEngine.text(in: channel).isEmpty else { return }
        do {
            try await draftEngine.store("", in: channel)
        } catch {
            logger.warning("a sent draft could not be cleared in the store", metadata: ["lifeline.error": "\(error)"])
        }
    }
}
