import Lifeline
import LifelineCore
import Synchronization

extension StoatClient {
    // MARK: - Open channels

    /// Marks a channel as open in the interface: its history is refetched after every reconnect, so
    /// messages sent while the session was away appear without the user asking. A refetch that fails is
    /// tried again 1 s, 2 s, 4 s … up to 30 s later, until the history is fresh or the channel closed.
    ///
    /// Other stale histories are refetched when next asked for (``history(of:)``).
    public func open(_ channel: String) {
        openChannels.withLock { _ = $0.insert(channel) }
    }

    /// Marks a channel as no longer open.
    public func close(_ channel: String) {
        openChannels.withLock { _ = $0.remove(channel) }
    }

    /// The channels the delivery check reads (``Configuration/deliveryCheck``), in turn: the open ones, then the two
    /// most recently active chats.
    func deliveryCheckCandidates() -> [String] {
        var candidates = openChannels.withLock { $0 }.sorted()
        let recent = cache.read { cache in cache.sortedChats.prefix(2).map(\.id) }
        for id in recent where !candidates.contains(id) { candidates.append(id) }
        return candidates
    }

    // MARK: - Reading through the cache

    /// A channel's latest messages: from the cache, refetched from the server first when stale (never
    /// fetched, loaded from the store, or invalidated by a reconnect).
    ///
    /// When the server cannot be asked (no session, the network is down, the server refuses) the cached
    /// history is returned as it is, still stale — from the store alone when the cache had none in
    /// memory. The failure is logged and counted; it never loses what the cache holds.
    ///
    /// - Parameter channel: The channel's id.
    public func history(of channel: String) async -> ChannelHistory {
        await loadStoredHistory(channel)
        let current = cachedHistory(of: channel)
        guard current.isStale else { return current }
        _ = try? await refreshHistory(of: channel)
        return cachedHistory(of: channel)
    }

    /// Fetches a channel's latest messages from the server now and merges them into the cache.
    ///
    /// Concurrent refreshes of one channel share one request.
    ///
    /// - Parameter channel: The channel's id.
    /// - Returns: The fresh history.
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/notSignedIn`` without a session, or
    ///   ``StoatClientErrorCode/requestFailed`` with the ``StoatAPIError`` as its cause.
    @discardableResult
    public func refreshHistory(of channel: String) async throws(StoatClientError) -> ChannelHistory {
        guard let credentials = currentCredentials else {
            throw StoatClientError(code: .notSignedIn, message: "a history needs a session")
        }
        let (limit, generation) = cache.read { (min(100, $0.historyLimit), $0.generation) }
        var result = await fetchHistory(of: channel, limit: limit, credentials)
        // Joined a fetch that began before a reconnect: its page cannot make the history fresh, so ask again.
        if case .success = result, cachedHistory(of: channel).isStale, cache.read({ $0.generation }) == generation {
            result = await fetchHistory(of: channel, limit: limit, credentials)
        }
        if case .failure(let error) = result {
            logger.info("a history could not be fetched", metadata: ["lifeline.error": "\(error)"])
            throw error
        }
        return cachedHistory(of: channel)
    }

    /// One fetch of a channel's latest page, shared with concurrent callers.
    private func fetchHistory(
        of channel: String, limit: Int, _ credentials: SessionCredentials
    ) async -> Result<Void, StoatClientError> {
        await historyFetches.run(key: channel) { [cache, api] in
            let token = cache.mutate { ($0.historyFetchStarted(channel: channel), AccountCache.Changes()) }
            do {
                let page = try await api.messages(
                    in: channel, query: .latest(limit: limit, includeUsers: true), credentials)
                cache.update {
                    $0.historyFetched(
                        channel: channel, page: page.messages, users: page.users, fetch: token, limit: limit)
                }
                return .success(())
            } catch {
                cache.update { cache in
                    cache.historyFetchFailed(channel: channel, fetch: token)
                    return AccountCache.Changes()
                }
                return .failure(
                    StoatClientError(code: .requestFailed, message: "fetching a history failed", cause: error))
            }
        }
    }

    /// A server's members: from the cache, refetched from the server first when stale (never fetched,
    /// loaded from the store, or invalidated by a reconnect); the cached list as it is when the server
    /// cannot be asked.
    ///
    /// - Parameter server: The server's id.
    public func members(of server: String) async -> MemberList {
        if cachedMembers(of: server).members.isEmpty, let store = cache.store {
            if let stored = try? await store.members(in: server) {
                cache.update { $0.loadStored(members: stored, server: server) }
            }
        }
        guard cachedMembers(of: server).isStale else { return cachedMembers(of: server) }
        _ = try? await refreshMembers(of: server)
        return cachedMembers(of: server)
    }

    /// Fetches a server's members from the server now (`GET /servers/{id}/members`) and replaces the
    /// cached list; concurrent refreshes of one server share one request.
    ///
    /// - Parameter server: The server's id.
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/notSignedIn`` or
    ///   ``StoatClientErrorCode/requestFailed``.
    @discardableResult
    public func refreshMembers(of server: String) async throws(StoatClientError) -> MemberList {
        guard let credentials = currentCredentials else {
            throw StoatClientError(code: .notSignedIn, message: "a member list needs a session")
        }
        let generation = cache.read { $0.generation }
        var result = await fetchMembers(of: server, credentials)
        // Joined a fetch that began before a reconnect: its list cannot make the members fresh, so ask again.
        if case .success = result, cachedMembers(of: server).isStale, cache.read({ $0.generation }) == generation {
            result = await fetchMembers(of: server, credentials)
        }
        if case .failure(let error) = result {
            logger.info("a member list could not be fetched", metadata: ["lifeline.error": "\(error)"])
            throw error
        }
        return cachedMembers(of: server)
    }

    /// One fetch of a server's members, shared with concurrent callers.
    private func fetchMembers(
        of server: String, _ credentials: SessionCredentials
    ) async -> Result<
        Void, StoatClientError
    > {
        await memberFetches.run(key: server) { [cache, api] in
            let generation = cache.read { $0.generation }
            do {
                let list = try await api.members(of: server, credentials)
                cache.update {
                    $0.membersFetched(
                        server: server, members: list.members, users: list.users, generation: generation)
                }
                return .success(())
            } catch {
                return .failure(
                    StoatClientError(code: .requestFailed, message: "fetching members failed", cause: error))
            }
        }
    }

    /// Fills an empty history from the account's store, if one is attached (stale until refetched).
    func loadStoredHistory(_ channel: String) async {
        await StoredHistoryLoader(cache: cache, logger: logger).load(channel)
    }

    // MARK: - Following the session

    /// Follows the session: refetches the open channels' stale histories each time it connects, labels
    /// the stored account with the user's name, and forgets the stored session when the user or the
    /// server ended it (a logout, or an invalid session in ERROR).
    func followSession(_ lifecycle: AsyncStream<ClientLifecycle>) async {
        await withDiscardingTaskGroup { group in
            for await moment in lifecycle {
                switch moment {
                case .connected:
                    await learnViewer()
                    // With catch-up, the catch-up fetches the open channels first (and tries them again).
                    if !catchUpPolicy.isEnabled {
                        let open = openChannels.withLock { $0 }
                        let generation = cache.read { $0.generation }
                        for channel in open where cachedHistory(of: channel).isStale {
                            group.addTask { await self.refetchOpenChannel(channel, generation: generation) }
                        }
                    }
                    group.addTask { await self.labelStoredAccount() }
                case .ended:
                    await forgetStoredSession()
                case .leftConnected, .entered:
                    break
                }
            }
        }
    }
}

extension StoatClient {
    /// A session that began without a user id (a token alone) learns it from the cache, which took it from
    /// `Ready` (the user whose relationship is `User`): the client's REST calls and the session carry it from
    /// now on. One source of who the user is: the session's user id, else `Ready`'s viewer.
    func learnViewer() async {
        guard let current = credentials.value, current.userID == nil, let viewer = cache.read({ $0.userID }) else {
            return
        }
        var named = current
        named.userID = viewer
        credentials.restore(named, ifStill: current)
        await session.userIdentified(viewer)
    }

    /// Refetches an open channel's history after a reconnect until it is fresh: a failed fetch (the server
    /// busy, a timeout) is tried again after 1 s, 2 s, 4 s … up to 30 s on the client's clock, for as long
    /// as the channel is open, its history stale and no later reconnect (which starts its own) happened.
    func refetchOpenChannel(_ channel: String, generation: UInt64) async {
        var delay = Duration.seconds(1)
        while !Task.isCancelled {
            if (try? await refreshHistory(of: channel)) != nil { return }
            let stillWanted =
                openChannels.withLock { $0.contains(channel) } && cache.read { $0.generation } == generation
                && cachedHistory(of: channel).isStale
            guard stillWanted else { return }
            do { try await sleep(delay) } catch { return }
            delay = min(delay * 2, .seconds(30))
        }
    }
}

/// Runs one operation per key at a time: a caller that finds one in flight for its key waits for it and
/// shares its result instead of starting another.
final class SharedFetches<Value: Sendable>: Sendable {
    private let waiting = Mutex<[String: [CheckedContinuation<Value?, Never>]]>([:])

    /// Whether an operation for `key` runs with exactly `followers` callers waiting for it.
    func isInFlight(_ key: String, followers: Int) -> Bool {
        waiting.withLock { $0[key]?.count == followers }
    }

    /// Runs `operation` for `key`, or waits for the one already running and returns its result.
    func run(key: String, _ operation: @Sendable () async -> Value) async -> Value {
        // One look under the lock decides: lead (no operation in flight) or follow (wait for its result).
        let shared: Value? = await withCheckedContinuation { continuation in
            let follows = waiting.withLock { waiting in
                guard waiting[key] != nil else {
                    waiting[key] = []
                    return false
                }
                waiting[key]?.append(continuation)
                return true
            }
            if !follows { continuation.resume(returning: nil) }
        }
        if let shared { return shared }
        let value = await operation()
        let followers = waiting.withLock { $0.removeValue(forKey: key) ?? [] }
        for follower in followers { follower.resume(returning: value) }
        return value
    }
}
