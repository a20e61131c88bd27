import Lifeline
package import LifelineCore

/// The signed-in account's store as ``StoatClient`` uses it besides the cache's and the outbox's adapters: the
/// stored session and the account's label. LifelineStoatStore adapts LifelineStore's `AccountDatabase` to it;
/// LifelineStoat itself links no store (no GRDB) for an app that keeps none.
package protocol AccountStorage: Sendable {
    /// Stores the session to resume, or forgets it with `nil`.
    func storeSession(_ session: SessionCredentials?) async throws
    /// The label the account is listed under.
    func label() async throws -> String?
    /// Sets the label the account is listed under.
    func setLabel(_ label: String) async throws
    /// Closes the store.
    func close() throws
    /// Whether `other` is this same store.
    func isSame(as other: any AccountStorage) -> Bool
}

extension StoatClient {
    // MARK: - The signed-in account's store

    /// How many messages the cache keeps per channel: what a store adapter keeps too.
    package var historyLimit: Int { cache.read { $0.historyLimit } }

    /// Makes `storage` the account's store, with its cache and outbox adapters: the cache and the outbox write
    /// to them from now on. A different store attached before is written out and closed.
    package func attach(
        _ storage: any AccountStorage, cache persistence: any CachePersistence, outbox: any OutboxPersistence
    ) async {
        let previous = signedInAccount.withLock { account in
            defer { account = storage }
            return account
        }
        if let previous, !previous.isSame(as: storage) {
            _ = await cache.detach()
            try? previous.close()
        }
        cache.attach(persistence)
        await outboxEngine.attach(outbox)
    }

    /// Closed while a sign-in reads the stored chats into the cache (the catch-up waits for them); opened
    /// when they are read.
    package func storedChatsLoading(_ loading: Bool) {
        if loading { storedChatsLoaded.close() } else { storedChatsLoaded.open() }
    }

    /// The number of chats the first screen shows, read before any network.
    package static let firstScreenChats = 10

    /// Starts the session and remembers it for REST calls.
    package func start(_ credentials: SessionCredentials, cached: Bool) async {
        _ = await logIn(credentials, cached: cached)
    }

    /// Reads chats from the store into the cache: the most recent `limit` (the first screen), or, with
    /// `nil`, all the others.
    package func loadStoredChats(limit: Int?) async {
        guard let store = cache.store else { return }
        do {
            let chats: [Chat]
            if let limit {
                chats = try await store.recentChats(limit: limit)
            } else {
                let shown = cache.read { $0.sortedChats }
                guard let oldest = shown.last else { return }
                chats = try await store.chats(olderThan: oldest)
            }
            cache.update { $0.loadStored(chats: chats) }
            // The first screen shows its unread states at once.
            if limit != nil { await loadStoredStates(of: chats.map(\.id)) }
        } catch {
            logger.info("stored chats could not be read", metadata: ["lifeline.error": "\(error)"])
        }
    }

    /// Reads chat states (read markers, mentions, gaps, catch-up cursors) from the store into the cache: of
    /// `ids`, or of every chat with `nil`.
    package func loadStoredStates(of ids: [String]?) async {
        guard let store = cache.store else { return }
        do {
            let states = try await store.chatStates(ids)
            cache.update { $0.loadStored(states: states) }
        } catch {
            logger.info("stored chat states could not be read", metadata: ["lifeline.error": "\(error)"])
        }
    }

    /// Forgets the stored session: the user or the server ended it. The next sign-in verifies the password.
    package func forgetStoredSession() async {
        guard let account = signedInAccount.withLock({ $0 }) else { return }
        do {
            try await account.storeSession(nil)
        } catch {
            logger.warning(
                "the ended session could not be removed from the store", metadata: ["lifeline.error": "\(error)"])
        }
    }

    /// Stores the user's name as the account's label, for the login screen's list of accounts.
    package func labelStoredAccount() async {
        guard let account = signedInAccount.withLock({ $0 }), let user = currentUser else { return }
        guard (try? await account.label()) != user.username else { return }
        try? await account.setLabel(user.username)
    }
}
