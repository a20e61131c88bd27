import Lifeline
import LifelineCore
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the outbox keeps its entries between runs: the account's encrypted store, through an adapter
/// (LifelineStoatStore's `AccountDatabaseOutbox`); without one, the outbox lives in memory only.
package protocol OutboxPersistence: Sendable {
    /// The stored entries, in queue order, and a reason for each one that could not be read.
    func outbox() async throws -> (records: [Outbox.Record], unreadable: [String])
    /// Writes an entry, replacing the one with its nonce.
    func save(_ record: Outbox.Record) async throws
    /// Removes the entry with this nonce.
    func remove(_ nonce: String) async throws
}

/// Runs a ``StoatClient``'s ``Outbox``: feeds it what the session, the socket, the server's answers, the
/// deadlines and the user say, and performs what it decides — on the client's clock, inside ``run(session:)``.
///
/// The engine runs on Lifeline's `EngineDriver`: the outbox is behind its lock, so a fact costs one locked update
/// on the path that brings it. What it decides is posted, under that lock, to the driver's stream that
/// ``run(session:lifecycle:checkCandidates:catchUps:)`` performs in order: store writes (awaited, so an entry is
/// persisted before the post that depends on it), and the session's delivery facts (in the order the socket and
/// the answers gave them); posts and look-ups run as child tasks of `run`, so nothing outlives it. Wake-ups are
/// entries in the driver's one timer (one sleep however many entries wait). Announcements and cache updates
/// happen under the lock, so observers see every change in order.
final class OutboxEngine: Sendable {
    /// What the run loop performs, in the outbox's order.
    private enum Command: Sendable {
        case persist(Outbox.Record)
        case remove(String)
        case post(Outbox.Record, generation: UInt64?)
        case lookUp(nonce: String, channel: String, floor: String)
        case act(Outbox.Record)
        case confirm(Outbox.Record)
        case upload(Outbox.Record, file: Int)
        case slowmodeRefused(channel: String, retryAfter: Duration)
        case expectDelivery(key: String, generation: UInt64)
        case deliverySeen(key: String)
    }

    /// What an entry was last announced as.
    private struct Announced: Sendable, Equatable {
        var state: OutboxEntry.State
        var progress: StoatFileServer.Progress?
    }

    private struct State: Sendable {
        var outbox = Outbox()
        var probe = DeliveryProbe()
        /// The state (and upload progress) each entry was last announced in, so a repeat is not announced.
        var announced: [String: Announced] = [:]
        /// Entries that left the outbox, with their last state, newest last (bounded).
        var finished: [(nonce: String, state: OutboxEntry.State)] = []
    }

    /// The observers' key in the cache's change signals.
    static let signalKey = ChangeKey.outbox
    /// How many finished entries ``state(of:)`` remembers.
    static let finishedMemory = 1024
    /// How many messages one look-up asks for per page (stoatchat's most).
    static let lookupPage = 100

    private let driver: EngineDriver<State, Command, Watch<UInt64>>
    private let persistence = Mutex<(any OutboxPersistence)?>(nil)
    /// Every announcement, unbounded: one per change of a message the user sent, each of which an observer
    /// (`lifeline connect`'s `outbox` lines) reports; their number is bounded by what the user sends.
    private let announcements = Broadcaster<OutboxEvent>(buffering: .unbounded)
    /// The deadlines' starts and ends, subscribed to when the client was made.
    private let restrictionEvents: AsyncStream<StoatRestrictionEvent>
    private let api: StoatAPI
    private let cache: CacheEngine
    private let credentials: ClientCaches.Credentials
    private let restrictions: RestrictionEngine
    private let deliveryCheck: Duration?
    private let sleep: @Sendable (Duration) async throws -> Void
    private let logger: Logger

    init(
        api: StoatAPI, cache: CacheEngine, credentials: ClientCaches.Credentials, restrictions: RestrictionEngine,
        clock: some Clock<Duration>, deliveryCheck: Duration?, logger: Logger
    ) {
        driver = EngineDriver(State(), clock: SessionClock(clock))
        restrictionEvents = restrictions.subscribe()
        self.api = api
        self.cache = cache
        self.credentials = credentials
        self.restrictions = restrictions
        self.deliveryCheck = deliveryCheck
        // Through `SessionClock`: a cancelled slowmode wait is kept by the runtime only until its next step.
        let steppedClock = SessionClock(clock)
        sleep = { try await steppedClock.sleep(for: $0) }
        self.logger = logger
    }

    // MARK: - Reading

    /// The entries in queue order.
    var entries: [OutboxEntry] { driver.withLock { $0.outbox.publicEntries } }

    /// Whether posts may go, as the outbox last heard of the session (it follows the session's moments on its own).
    var mayPost: Bool { driver.withLock { $0.outbox.mayPost } }

    /// Whether the outbox takes the session as CONNECTED, as it last heard of it.
    var knowsConnected: Bool { driver.withLock { $0.outbox.connection != nil } }

    /// Every change from now on.
    func subscribe() -> AsyncStream<OutboxEvent> { announcements.subscribe() }

    /// An entry's state: in the outbox, or the last one of an entry that left it lately; `nil` when unknown.
    func state(of nonce: String) -> OutboxEntry.State? {
        driver.withLock { state in
            state.outbox.publicEntries.first { $0.nonce == nonce }?.state
                ?? state.finished.last { $0.nonce == nonce }?.state
        }
    }

    // MARK: - The user

    /// Queues a message: persisted first when the account's store is attached, then queued. Its `files` are
    /// read first (their sizes and SHA-256s are kept with the entry); one that cannot be read queues nothing.
    func send(
        _ message: OutgoingMessage, files: [OutgoingFile] = [], to channel: String
    ) async throws(StoatClientError) -> OutboxEntry {
        let nonce = message.idempotencyKey
        guard Self.isUsableNonce(nonce) else {
            throw StoatClientError(
                code: .invalidRequest,
                message: "an outbox message's idempotencyKey is 1 to \(Outbox.maximumNonceLength) letters, digits, "
                    + "- or _")
        }
        if let known = driver.withLock({ $0.outbox.publicEntries.first { $0.nonce == nonce } }) {
            // The same value sent again: the entry already queued, never a second one.
            return known
        }
        var stored: [Outbox.Record.StoredFile] = []
        for file in files {
            do {
                let digest = try await FileDigest.of(file.path)
                stored.append(
                    .init(path: file.path, filename: file.uploadName, size: digest.size, sha256: digest.sha256))
            } catch {
                throw StoatClientError(
                    code: .invalidRequest, message: "the file \(file.uploadName) cannot be read", cause: error)
            }
        }
        let floor = Self.floor(
            cache.read { cache in
                [cache.history(channel).messages.map(\.id).max(), cache.channels[channel]?.lastMessageID]
                    .compactMap { $0 }.max()
            })
        // The position is taken now, so two sends at once keep their order in the store too.
        let record = driver.withLock {
            $0.outbox.makeRecord(nonce: nonce, channel: channel, message: message, floor: floor, files: stored)
        }
        if let store = persistence.withLock({ $0 }) {
            do {
                try await store.save(record)
            } catch {
                throw StoatClientError(
                    code: .storageFailed, message: "the message could not be kept in the account's store", cause: error)
            }
        }
        apply { outbox, now in outbox.enqueue(record, now: now) }
        return driver.withLock { $0.outbox.publicEntries.first { $0.nonce == nonce } }
            ?? OutboxEntry(nonce: nonce, channel: channel, message: message, state: .queued(retryAfter: nil))
    }

    /// Queues an action on a message (not a send): persisted first when the account's store is attached, then
    /// queued behind the channel's earlier entries.
    func act(
        _ kind: OutboxEntry.Kind, on target: String, in channel: String, text: String? = nil, emoji: String? = nil
    ) async throws(StoatClientError) -> OutboxEntry {
        precondition(kind != .send, "a send goes through send(_:to:)")
        guard !target.isEmpty, !channel.isEmpty else {
            throw StoatClientError(code: .invalidRequest, message: "an action needs a message and its channel")
        }
        if kind == .react || kind == .unreact, emoji?.isEmpty != false {
            throw StoatClientError(code: .invalidRequest, message: "a reaction needs an emoji")
        }
        if kind == .edit, text?.isEmpty != false {
            throw StoatClientError(
                code: .invalidRequest, message: "an edit needs a text (stoatchat refuses an empty one)")
        }
        let nonce = UUID().uuidString
        let user = credentials.value?.userID ?? cache.read { $0.userID }
        let record = driver.withLock {
            $0.outbox.makeActionRecord(
                nonce: nonce, kind: kind, channel: channel, target: target, text: text, emoji: emoji, user: user)
        }
        if let store = persistence.withLock({ $0 }) {
            do {
                try await store.save(record)
            } catch {
                throw StoatClientError(
                    code: .storageFailed, message: "the action could not be kept in the account's store", cause: error)
            }
        }
        apply { outbox, now in outbox.enqueue(record, now: now) }
        return driver.withLock { $0.outbox.publicEntries.first { $0.nonce == nonce } }
            ?? Outbox.view(Outbox.Entry(record: record, step: .ready(.post)))
    }

    func discard(_ nonce: String) throws(StoatClientError) {
        var answer = Outbox.Answer.done
        apply { outbox, _ in
            let (result, actions) = outbox.discard(nonce)
            answer = result
            return actions
        }
        if case .refused(let reason) = answer { throw StoatClientError(code: .outboxRefused, message: reason) }
        driver.withLock { $0.announced[nonce] = nil }
        cache.signals.signal([Self.signalKey])
    }

    func resend(_ nonce: String) throws(StoatClientError) {
        var answer = Outbox.Answer.done
        apply { outbox, now in
            let (result, actions) = outbox.resend(nonce, now: now)
            answer = result
            return actions
        }
        if case .refused(let reason) = answer { throw StoatClientError(code: .outboxRefused, message: reason) }
    }

    /// Whether `nonce` can name an entry and its later keys (`NONCE.n`) within stoatchat's 64 characters,
    /// without one entry's keys looking like another's.
    static func isUsableNonce(_ nonce: String) -> Bool {
        !nonce.isEmpty && nonce.utf8.count <= Outbox.maximumNonceLength
            && nonce.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_")
            }
    }

    /// The look-up's floor: five minutes before the newest message the client knows in the channel (the API's
    /// processes may disagree on the time by a little), or the beginning of time when it knows none — never the
    /// device's clock, which may be ahead of the server's and would hide the message (a look-up that reads more
    /// costs requests; one that misses costs a second copy).
    static func floor(_ newestKnown: String?) -> String {
        let margin: Int64 = 5 * 60 * 1000
        guard let newestKnown, let milliseconds = ULID.milliseconds(of: newestKnown) else {
            return ULID.floor(milliseconds: 0)
        }
        return ULID.floor(milliseconds: max(0, milliseconds - margin))
    }

    // MARK: - The store

    /// Attaches the account's store and restores its entries; an entry that cannot be read is reported and
    /// skipped. The entries of a store attached before (another account's) are forgotten in memory first.
    func attach(_ store: any OutboxPersistence) async {
        let previous = persistence.withLock { persistence in
            defer { persistence = store }
            return persistence
        }
        if previous != nil { forget() }
        let stored: (records: [Outbox.Record], unreadable: [String])
        do {
            stored = try await store.outbox()
        } catch {
            logger.warning("the outbox could not be read", metadata: ["lifeline.error": "\(error)"])
            announcements.publish(.unreadable("the outbox could not be read from the account's store"))
            return
        }
        for reason in stored.unreadable {
            logger.warning("an outbox entry could not be read", metadata: ["lifeline.reason": "\(reason)"])
            announcements.publish(.unreadable(reason))
        }
        apply { outbox, now in outbox.restore(stored.records, now: now) }
    }

    /// The session was disposed of (``ClientCaches``, before READY): the outbox is forgotten in memory. With a
    /// store, its entries stay there for the next sign-in; without one, a logout is the user's word, and the
    /// entries not sent are reported failed (`loggedOut`) as they go — one being sent may have reached the
    /// server, and says so.
    func disposed() {
        let store = persistence.withLock { store in
            defer { store = nil }
            return store
        }
        forget(reporting: store == nil)
    }

    /// Forgets every entry in memory; `reporting`, each one not sent is announced failed (`loggedOut`).
    private func forget(reporting: Bool = false) {
        driver.withLock { state in
            let (dropped, actions) = state.outbox.reset()
            state.probe.connectionChanged(nil)
            for action in actions { perform(action, in: &state) }
            if reporting {
                for var entry in dropped where entry.state.name != "failed" {
                    let message =
                        entry.state == .sending
                        ? "the session ended while it was being sent: the server may have it"
                        : "the session ended before it was sent"
                    entry.state = .failed(
                        OutboxEntry.Failure(
                            code: .loggedOut, message: message, mayHaveBeenSent: entry.state == .sending))
                    announcements.publish(.changed(entry))
                    remember(entry.nonce, entry.state, in: &state)
                }
            }
            state.announced = [:]
        }
        cache.signals.signal([Self.signalKey])
    }

    // MARK: - Running

    /// Follows the session, the socket's events and the deadlines, and performs the outbox's actions until the
    /// calling task is cancelled; then drops every wake-up and ends the announcements. `lifecycle` is the
    /// session's moments (``ClientLifecycle``); `checkCandidates` names the channels the delivery check reads (the
    /// open ones, then the most recently active chats); `catchUps` are the client's catch-up reports (nil when it
    /// does not catch up).
    func run(
        session: Session, lifecycle: AsyncStream<ClientLifecycle>,
        checkCandidates: @escaping @Sendable () -> [String] = { [] },
        catchUps: AsyncStream<CatchUpReport>? = nil
    ) async {
        // Without a catch-up, the cache is as caught up as it gets at CONNECTED.
        driver.addChild { await self.followSession(session, lifecycle: lifecycle, caughtUpAtConnect: catchUps == nil) }
        driver.addChild { await self.followDeadlines() }
        if let deliveryCheck {
            driver.addChild {
                await self.checkDeliveries(
                    every: deliveryCheck, session: session, candidates: checkCandidates, catchUps: catchUps)
            }
        }
        await driver.run { due in
            for watch in due { self.apply { $0.wake(ticket: watch.id, now: $1) } }
        } perform: { command in
            switch command {
            case .persist(let record):
                await self.write("an outbox entry") { try await $0.save(record) }
            case .remove(let nonce):
                await self.write("an outbox entry's removal") { try await $0.remove(nonce) }
            case .post(let record, let generation):
                return { await self.post(record, generation: generation, session: session) }
            case .lookUp(let nonce, let channel, let floor):
                return { await self.lookUp(nonce, channel: channel, floor: floor) }
            case .act(let record):
                return { await self.act(record) }
            case .confirm(let record):
                return { await self.confirm(record) }
            case .upload(let record, let file):
                return { await self.upload(record, file: file) }
            case .slowmodeRefused(let channel, let retryAfter):
                self.restrictions.slowmodeRefused(channel: channel, retryAfter: retryAfter)
            case .expectDelivery(let key, let generation):
                await session.deliveryExpected(key, generation: generation)
            case .deliverySeen(let key):
                await session.deliverySeen(key)
            }
            return nil
        }
        announcements.finish()
    }

    private func write(_ what: String, _ body: (any OutboxPersistence) async throws -> Void) async {
        guard let store = persistence.withLock({ $0 }) else { return }
        do {
            try await body(store)
        } catch {
            // The outbox in memory goes on; a restart before the next successful write may repeat a look-up,
            // never a blind post (see the catalog's "The outbox").
            logger.warning(
                "the outbox could not be stored", metadata: ["lifeline.what": "\(what)", "lifeline.error": "\(error)"])
        }
    }

    /// Follows the session's moments (``ClientLifecycle``, from its hooks, in order, none dropped): the state it
    /// entered decides whether posts may go; the connection is the session's as it is now, not as the moment
    /// was, so a moment read late never takes the outbox back (the post that found CONNECTED before this
    /// follower did has already told it, see `post`).
    private func followSession(
        _ session: Session, lifecycle: AsyncStream<ClientLifecycle>, caughtUpAtConnect: Bool
    ) async {
        var sessionState = session.snapshot.state
        for await moment in lifecycle {
            switch moment {
            case .entered(let entered): sessionState = entered
            case .connected, .leftConnected: break
            case .ended: continue
            }
            let generation = await session.connectedGeneration
            let now = driver.now
            driver.withLock { state in
                state.probe.connectionChanged(generation, now: now)
                if caughtUpAtConnect, let generation { state.probe.caughtUpCompleted(generation: generation) }
            }
            let mayPost = Self.mayPost(in: sessionState)
            apply { $0.sessionChanged(connected: generation, mayPost: mayPost, now: $1) }
        }
    }

    /// Whether posts may go in a session state: it holds its credentials and the device a network. Stoat's own
    /// clients post over REST whatever the socket does, so an events server that is down (the socket refused,
    /// DISCONNECTED and RECONNECTING in turn) holds nothing back; OFFLINE waits for the network.
    static func mayPost(in state: SessionState) -> Bool {
        switch state {
        case .connecting, .connected, .disconnected, .reconnecting: true
        case .ready, .loggingIn, .onboarding, .error, .dispose, .offline: false
        }
    }

    /// An event of the live socket (``StoatClient`` calls it on the socket's path, after the cache): a message
    /// may be an entry's echo, or one the delivery check is owed.
    func socketDelivered(_ event: BonfireEvent) {
        switch event {
        case .pong, .ping:
            return
        default:
            let now = driver.now
            driver.withLock { $0.probe.eventArrived(now: now) }
        }
        switch event {
        case .message(let message):
            apply { outbox, now in outbox.delivered(message, now: now) }
            if let seen = driver.withLock({ $0.probe.delivered(message) }) { driver.post(.deliverySeen(key: seen)) }
        case .bulk(let events):
            for event in events { socketDelivered(event) }
        default:
            break
        }
    }

    private func followDeadlines() async {
        for deadline in restrictions.restrictions where deadline.kind == .slowmode {
            slowmode(deadline.target, until: deadline.deadline)
        }
        for await event in restrictionEvents {
            switch event {
            case .started(let deadline) where deadline.kind == .slowmode:
                slowmode(deadline.target, until: deadline.deadline)
            case .ended(let deadline, _) where deadline.kind == .slowmode:
                slowmode(deadline.target, until: nil)
            default:
                break
            }
        }
    }

    /// A slowmode stated on the deadlines' clock, moved to the outbox's.
    private func slowmode(_ channel: String, until deadline: Duration?) {
        let offset = driver.now - restrictions.now
        apply { outbox, now in outbox.slowmode(channel: channel, until: deadline.map { $0 + offset }, now: now) }
    }

    // MARK: - Requests

    private func post(_ record: Outbox.Record, generation: UInt64?, session: Session) async {
        if generation == nil, let live = await session.connectedGeneration {
            // CONNECTED before the outbox's follower heard of it: the post starts on that connection, whose socket
            // owes its echo.
            apply { outbox, now in outbox.postStarted(record.nonce, key: record.key, on: live, now: now) }
        }
        let outcome: Outbox.PostOutcome
        if let credentials = credentials.value {
            do {
                outcome = .stored(try await api.sendMessage(record.message, in: record.channel, credentials))
            } catch {
                if error.code == .cancelled, Task.isCancelled { return }  // the client is stopping
                logger.info(
                    "outbox: a post failed",
                    metadata: ["lifeline.nonce": "\(record.nonce)", "lifeline.error": "\(error.code)"])
                outcome = Outbox.PostOutcome(error)
            }
        } else {
            outcome = .later(nil)
        }
        apply { outbox, now in outbox.posted(record.nonce, key: record.key, outcome: outcome, now: now) }
    }

    /// Makes an action's request, and reads its answer as the outbox does (``Outbox/ActionOutcome``).
    private func act(_ record: Outbox.Record) async {
        let outcome: Outbox.ActionOutcome
        if let credentials = credentials.value, let target = record.target {
            do throws(StoatAPIError) {
                switch record.entryKind {
                case .send:
                    return
                case .edit:
                    let message = try await api.editMessage(
                        target, in: record.channel, content: record.content ?? "", credentials)
                    outcome = .applied(message)
                case .delete:
                    try await api.deleteMessage(target, in: record.channel, credentials)
                    outcome = .applied(nil)
                case .react:
                    try await api.react(to: target, in: record.channel, emoji: record.emoji ?? "", credentials)
                    outcome = .applied(nil)
                case .unreact:
                    try await api.unreact(to: target, in: record.channel, emoji: record.emoji ?? "", credentials)
                    outcome = .applied(nil)
                }
            } catch {
                if error.code == .cancelled, Task.isCancelled { return }  // the client is stopping
                logger.info(
                    "outbox: an action failed",
                    metadata: [
                        "lifeline.nonce": "\(record.nonce)", "lifeline.kind": "\(record.entryKind.rawValue)",
                        "lifeline.error": "\(error.code)",
                    ])
                outcome = Outbox.ActionOutcome(error, kind: record.entryKind)
            }
        } else {
            outcome = .later(nil)
        }
        apply { outbox, now in outbox.acted(record.nonce, outcome: outcome, now: now) }
    }

    /// Uploads a send's file: only while it still has the SHA-256 it was queued with (checked before, and again
    /// after, so that the message never carries other bytes), with progress, and reads the answer as the outbox
    /// does (``Outbox/UploadOutcome``).
    private func upload(_ record: Outbox.Record, file index: Int) async {
        guard let file = record.files?[index] else { return }
        let nonce = record.nonce
        let outcome: Outbox.UploadOutcome
        if let credentials = credentials.value {
            if let changed = await Self.check(file) {
                outcome = .refused(changed)
            } else {
                do throws(StoatAPIError) {
                    let files = try await api.fileServer()
                    let id = try await files.upload(contentsOf: file.path, filename: file.filename, as: credentials) {
                        progress in
                        self.apply { outbox, _ in outbox.uploadProgressed(nonce, file: index, progress: progress) }
                    }
                    // Changed while it was read: the uploaded copy is never claimed by a message.
                    if let changed = await Self.check(file) {
                        outcome = .refused(changed)
                    } else {
                        outcome = .stored(id)
                    }
                } catch {
                    if error.code == .cancelled, Task.isCancelled { return }  // the client is stopping
                    logger.info(
                        "outbox: an upload failed",
                        metadata: ["lifeline.nonce": "\(nonce)", "lifeline.error": "\(error.code)"])
                    outcome = Outbox.UploadOutcome(error, filename: file.filename)
                }
            }
        } else {
            outcome = .later(nil)
        }
        apply { outbox, now in outbox.uploaded(nonce, file: index, outcome: outcome, now: now) }
    }

    /// Why a queued file may not be uploaded (it cannot be read, or its bytes changed), or `nil` when it may.
    static func check(_ file: Outbox.Record.StoredFile) async -> OutboxEntry.Failure? {
        let digest: FileDigest
        do {
            digest = try await FileDigest.of(file.path)
        } catch {
            return OutboxEntry.Failure(
                code: .fileUnreadable, message: "the file \(file.filename) can no longer be read: nothing was sent")
        }
        guard digest.size == file.size, digest.sha256 == file.sha256 else {
            return OutboxEntry.Failure(
                code: .fileChanged,
                message: "the file \(file.filename) changed on disk since it was queued: its bytes are not sent")
        }
        return nil
    }

    /// Reads an action's message back (`GET /channels/{c}/messages/{m}`).
    private func confirm(_ record: Outbox.Record) async {
        let result: Outbox.ConfirmResult
        if let credentials = credentials.value, let target = record.target {
            do throws(StoatAPIError) {
                result = .message(try await api.message(target, in: record.channel, credentials))
            } catch {
                if error.code == .cancelled, Task.isCancelled { return }
                if error.code == .notFound {
                    result = .gone
                } else if Self.isRefusal(error) {
                    result = .refused(error.outboxFailure)
                } else {
                    result = .failed
                }
            }
        } else {
            result = .failed
        }
        apply { outbox, now in outbox.confirmed(record.nonce, result: result, now: now) }
    }

    private func lookUp(_ nonce: String, channel: String, floor: String) async {
        let result: Outbox.LookupResult
        if let credentials = credentials.value {
            result = await Self.lookUp(nonce, channel: channel, floor: floor, api: api, credentials: credentials)
        } else {
            result = .failed
        }
        if result == .failed, Task.isCancelled { return }
        apply { outbox, now in outbox.lookedUp(nonce, result: result, now: now) }
    }

    /// Reads the channel's messages after `floor`, oldest first, a page at a time, until one carries the nonce
    /// (or a key made from it) or the pages end.
    static func lookUp(
        _ nonce: String, channel: String, floor: String, api: StoatAPI, credentials: SessionCredentials
    ) async -> Outbox.LookupResult {
        var after = floor
        while true {
            let page: MessagesPage
            do {
                page = try await api.messages(
                    in: channel, query: MessageQuery(limit: lookupPage, after: after, sort: .oldest), credentials)
            } catch {
                guard isRefusal(error) else { return .failed }
                return .refused(error.outboxFailure)
            }
            if let found = page.messages.first(where: { $0.nonce.map { Outbox.key($0, belongsTo: nonce) } == true }) {
                return .found(found)
            }
            // A short page is the last; a page that does not move forward is a server's mistake, not an end.
            guard page.messages.count >= lookupPage else { return .notFound }
            guard let last = page.messages.map(\.id).max(), last > after else { return .failed }
            after = last
        }
    }

    /// Whether a look-up's failure is the server's refusal for good (a 4xx but a `401`, `408` or `429`): looking
    /// again would be refused again — in a channel where the user may send but not read the history stoatchat
    /// answers `MissingPermission` (`ReadMessageHistory`) to every `GET /channels/{id}/messages`.
    static func isRefusal(_ error: StoatAPIError) -> Bool {
        guard let status = error.status, (400..<500).contains(status), !error.isInvalidSession else { return false }
        return status != 401 && status != 408 && status != 429
    }

    // MARK: - The delivery check

    /// Every `interval` (the client takes 15 s at least: 4 requests a minute), while CONNECTED, caught up, idle (nothing being sent,
    /// whose own echo watches the socket) and quiet (no event for `interval`), reads one candidate channel's newest
    /// messages (``DeliveryProbe``): a message the socket did not deliver is owed, on the session's delivery deadline.
    private func checkDeliveries(
        every interval: Duration, session: Session, candidates: @escaping @Sendable () -> [String],
        catchUps: AsyncStream<CatchUpReport>?
    ) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                guard let catchUps else { return }
                for await report in catchUps where report.isComplete {
                    guard let generation = await session.connectedGeneration else { continue }
                    self.driver.withLock { $0.probe.caughtUpCompleted(generation: generation) }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    do { try await self.sleep(interval) } catch { return }
                    guard let generation = await session.connectedGeneration else { continue }
                    await self.checkOnce(
                        generation: generation, interval: interval, candidates: candidates(),
                        caughtUp: catchUps != nil)
                }
            }
        }
    }

    /// One check, if one is due. `caughtUp`: a catch-up runs after each CONNECTED, so the cache holds what was
    /// posted before the connection (without one, a first reading of a channel only notes where it stands).
    private func checkOnce(generation: UInt64, interval: Duration, candidates: [String], caughtUp: Bool) async {
        let now = driver.now
        let channel: String? = driver.withLock { state in
            // Idle only: while a message is being sent, its own echo watches the socket.
            let busy =
                state.outbox.entries.contains { if case .failed = $0.step { false } else { true } }
                || !state.outbox.awaitedEchoes.isEmpty
            guard !busy else { return nil }
            return state.probe.nextCheck(generation: generation, now: now, interval: interval, candidates: candidates)
        }
        guard let channel, let credentials = credentials.value,
            let page = try? await api.messages(
                in: channel, query: .latest(limit: DeliveryProbe.pageSize), credentials)
        else { return }
        let history = cache.read { $0.history(channel) }
        let ids = history.messages.map(\.id)
        let held = Set(ids)
        // A fresh history that holds nothing says the channel was empty: everything in it now is newer.
        let newestHeld = ids.max() ?? (history.isStale ? nil : "")
        let finding = driver.withLock {
            $0.probe.checked(
                channel: channel, page: page.messages, generation: generation,
                newestHeld: caughtUp ? newestHeld : nil
            ) { held.contains($0) }
        }
        for message in finding.webhookMessages {
            // No socket delivers a webhook's message in a server channel (the new events server): found here, it
            // joins the history, as any message known on its own.
            cache.update { $0.sent(message) }
        }
        if let owed = finding.owed { driver.post(.expectDelivery(key: owed, generation: generation)) }
    }

    // MARK: - Applying

    /// Runs one fact through the outbox with the current time, and performs or posts what it decided, in order.
    private func apply(_ fact: (inout Outbox, Duration) -> [Outbox.Action]) {
        let now = driver.now
        let changed = driver.withLock { state in
            let actions = fact(&state.outbox, now)
            for action in actions { perform(action, in: &state) }
            return !actions.isEmpty
        }
        if changed { cache.signals.signal([Self.signalKey]) }
    }

    /// Performs an action under the lock: announcements and the cache at once, in order; the rest posted.
    private func perform(_ action: Outbox.Action, in state: inout State) {
        switch action {
        case .announce(let entry):
            let announced = Announced(state: entry.state, progress: entry.progress)
            guard state.announced[entry.nonce] != announced else { return }
            state.announced[entry.nonce] = announced
            switch entry.state {
            case .sent:
                state.announced[entry.nonce] = nil
                remember(entry.nonce, entry.state, in: &state)
            default:
                break
            }
            announcements.publish(.changed(entry))
        case .cache(let message):
            cache.update { $0.sent(message) }
        case .persist(let record): driver.post(.persist(record))
        case .remove(let nonce): driver.post(.remove(nonce))
        case .post(let record, let generation): driver.post(.post(record, generation: generation))
        case .lookUp(let nonce, let channel, let floor):
            driver.post(.lookUp(nonce: nonce, channel: channel, floor: floor))
        case .act(let record): driver.post(.act(record))
        case .upload(let record, let file): driver.post(.upload(record, file: file))
        case .confirm(let record): driver.post(.confirm(record))
        case .applyToCache(let record, let message):
            guard let target = record.target else { return }
            cache.update {
                $0.applied(
                    record.entryKind, target: target, channel: record.channel, text: record.content,
                    emoji: record.emoji, user: record.reactingUser, message: message)
            }
        case .watch(let ticket, let at): driver.schedule(Watch(id: ticket), at: at)
        case .unwatch(let ticket): driver.cancel(ticket)
        case .slowmodeRefused(let channel, let retryAfter):
            driver.post(.slowmodeRefused(channel: channel, retryAfter: retryAfter))
        case .expectDelivery(let key, let generation): driver.post(.expectDelivery(key: key, generation: generation))
        case .deliverySeen(let key): driver.post(.deliverySeen(key: key))
        }
    }

    private func remember(_ nonce: String, _ final: OutboxEntry.State, in state: inout State) {
        state.finished.append((nonce, final))
        if state.finished.count > Self.finishedMemory { state.finished.removeFirst() }
    }
}
