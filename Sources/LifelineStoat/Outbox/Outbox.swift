/// The account's outbox as pure bookkeeping: what to do with each message the user sent until the server has
/// it exactly once, or refused it for good.
///
/// Facts go in — a message queued, the session CONNECTED or not, a post's outcome, a look-up's result, an event
/// of the socket, a wake-up, the user's discard or resend — and actions come out: persist or remove an entry,
/// post, look the message up, arm or drop a wake-up, announce a change, tell the session that a delivery is
/// owed or was seen. It reads no clock (`now` comes in) and does no I/O; ``OutboxEngine`` performs its actions.
///
/// The rules (stoatchat consumes an `Idempotency-Key` in a request guard before the route runs, also when the
/// route then refuses, keeps it in one LRU of 1000 per API process, and echoes it as the message's `nonce`):
/// - Posts go whenever the API may answer — the session holds its credentials and the device a network (CONNECTING,
///   CONNECTED, DISCONNECTED, RECONNECTING; not OFFLINE) — one at a time per channel, oldest first; channels go
///   side by side. The socket's echo confirms a post made while CONNECTED; any other is confirmed by its answer,
///   or by a look-up.
/// - An outcome that does not say whether the message was stored — a network failure, a timeout, a lost or
///   unreadable answer, a 5xx, a `409` of any shape — is never a reason to post again blindly: the message is
///   looked for first (its event on the socket, or the channel's messages after the entry's ``Record/floor``).
///   Found, it is `sent`. After a network failure and not found, the same key is posted again (the server's
///   cache refuses it if the first post did arrive). After a `409` and not found — the key was consumed without
///   a post, or another API process holds it — it is looked for once more ``conflictRecheck`` later, and only
///   then posted with a new key.
/// - A slowmode is waited out: a known one before posting, a refusal (`InSlowmode`) for its `retry_after` plus a
///   second of resolution, then a new key (the refused post consumed the old one).
/// - A definite refusal is `failed` with its reason; only the user's ``resend(_:now:)`` (a new key) or
///   ``discard(_:)`` moves it. A look-up the server refuses for good (a channel where the user may send but not
///   read the history: `MissingPermission`) ends the entry `failed` with that reason, marked "may have been sent":
///   never a loop of look-ups, never a second post.
/// - A message the server returned (a post's answer, not its look-up) is a delivery the socket owes: the
///   session's delivery deadline watches for its event (``Action/expectDelivery(key:generation:)``).
package struct Outbox: Sendable {
    /// The entry as it is persisted: enough to resume after a restart.
    package struct Record: Sendable, Hashable, Codable {
        /// The record's format: 1 for a send (what every release wrote), 2 for an action on a message, which a
        /// release before actions cannot read and skips (it would post the edit's text as a new message), 3 for
        /// a send with files, which a release before files skips (it would post the message without them).
        package var version = 1
        package var nonce: String
        /// What the entry does; absent (a send) in records written before actions.
        package var kind: OutboxEntry.Kind?
        /// The message an action acts on.
        var target: String?
        /// A reaction's emoji.
        var emoji: String?
        /// Whose reaction a react or unreact is: the signed-in user when it was queued.
        var reactingUser: String?
        var channel: String
        var content: String?
        var attachments: [String]?
        var replies: [OutgoingMessage.Reply]?
        var masquerade: Message.Masquerade?
        /// The message's flags' bits (``MessageFlags/rawValue``), as the record was first written.
        var flags: Int?
        /// The queue's order.
        package var position: Int64
        /// Which key is in use: 1 is the nonce itself, n > 1 is `NONCE.n`.
        var attempt = 1
        /// Whether the key in use was posted at least once: its outcome is then unknown until found or refused.
        var posted = false
        /// A message id from before the first post: the look-up reads the channel's messages after it.
        var floor: String
        /// The definite refusal, once there is one.
        var failure: Failure?
        /// The files a send uploads before it posts (format 3), each with its id once uploaded.
        package var files: [StoredFile]?

        /// A file of a send, as stored: its path, what it held when queued, its id once uploaded.
        package struct StoredFile: Sendable, Hashable, Codable {
            package var path: String
            package var filename: String
            package var size: Int64
            package var sha256: String
            package var id: String?
        }

        /// The first file not yet uploaded, if any.
        var pendingUpload: Int? { files?.firstIndex { $0.id == nil } }

        struct Failure: Sendable, Hashable, Codable {
            /// Kept as its stable name (a JSON string), as every release wrote it.
            var code: OutboxEntry.Failure.Code
            var message: String
            /// Whether the server may have the message (``OutboxEntry/Failure/mayHaveBeenSent``); absent in records
            /// written before it.
            var mayHaveBeenSent: Bool?
        }

        /// What the entry does.
        var entryKind: OutboxEntry.Kind { kind ?? .send }

        /// Whether the entry is an action on a message rather than a send.
        var isAction: Bool { entryKind != .send }

        /// The message, as the outbox posts it: the record's key, no body `nonce`.
        var message: OutgoingMessage {
            guard !isAction else { return OutgoingMessage(content: content, idempotencyKey: key) }
            // The uploaded files join the ids the message carried.
            let all = (attachments ?? []) + (files ?? []).compactMap(\.id)
            return OutgoingMessage(
                content: content, attachments: all.isEmpty ? nil : all, replies: replies, masquerade: masquerade,
                flags: flags.map(MessageFlags.init(rawValue:)), idempotencyKey: key)
        }

        /// The `Idempotency-Key` in use.
        var key: String { Outbox.key(nonce: nonce, attempt: attempt) }
    }

    /// What a post answered, as the outbox reads it.
    enum PostOutcome: Sendable, Equatable {
        /// The server stored it: the answer carries the message.
        case stored(Message)
        /// The server refused it for good.
        case refused(OutboxEntry.Failure)
        /// The channel's slowmode refused it (`InSlowmode`): the key was consumed.
        case slowmode(retryAfter: Duration)
        /// Refused before the key's guard (the rate limiter, a session the server does not take): try the same
        /// key again after this long (a backoff when `nil`).
        case later(Duration?)
        /// Unknown: stored or not. `conflict` for a `409`: the key was consumed.
        case unknown(conflict: Bool)
    }

    /// What an action's request answered, as the outbox reads it (stoatchat's `message_edit.rs`,
    /// `message_delete.rs`, `message_react.rs`, `message_unreact.rs`).
    enum ActionOutcome: Sendable, Equatable {
        /// Applied: the server's answer (an edit's message), if it carries one.
        case applied(Message?)
        /// The server says it is already so: a delete or an unreact answered `NotFound` (the message, or the
        /// user's reaction, is gone).
        case alreadyApplied
        /// Refused for good, with the server's reason.
        case refused(OutboxEntry.Failure)
        /// Refused before the route ran (the rate limiter, a session not taken): the same request later.
        case later(Duration?)
        /// Unknown: applied or not. The message is read back before anything is repeated.
        case unknown
    }

    /// What an upload of one of a send's files answered, as the outbox reads it.
    enum UploadOutcome: Sendable, Equatable {
        /// The file server stored it, with this id.
        case stored(String)
        /// Refused for good: over the limit, changed on disk, unreadable, a type the tag refuses…
        case refused(OutboxEntry.Failure)
        /// Refused before it was read (the rate limiter, a session not taken): upload again after this long.
        case later(Duration?)
        /// No answer: stored or not, it is uploaded again (an orphan upload is never claimed by a message).
        case unknown
    }

    /// A failure every route reads the same way (``StoatAPIError/outboxTransient``): its outcome is unknown, or
    /// the same request is made later.
    enum Transient: Sendable, Equatable {
        /// No answer, an unreadable one or a `5xx`: done or not, unknown.
        case unknown
        /// Refused before the route ran: again after this long (a backoff when `nil`).
        case later(Duration?)

        /// The upload's outcome it is.
        var upload: UploadOutcome {
            switch self {
            case .unknown: .unknown
            case .later(let wait): .later(wait)
            }
        }

        /// The action's outcome it is.
        var action: ActionOutcome {
            switch self {
            case .unknown: .unknown
            case .later(let wait): .later(wait)
            }
        }
    }

    /// What reading an action's message back (`GET /channels/{c}/messages/{m}`) found.
    enum ConfirmResult: Sendable, Equatable {
        /// The message as the server has it now.
        case message(Message)
        /// The message is gone (`NotFound`).
        case gone
        /// The read failed: try it again later, never repeat the action instead.
        case failed
        /// The server refused the read for good.
        case refused(OutboxEntry.Failure)
    }

    /// What a look-up found.
    enum LookupResult: Sendable, Equatable {
        case found(Message)
        case notFound
        /// The look-up itself failed: try it again later, never post instead.
        case failed
        /// The server refused the look-up for good (the user may not read the channel's history, the channel is
        /// gone): the message cannot be found, and is never posted blindly either.
        case refused(OutboxEntry.Failure)
    }

    /// What the engine must do, in order.
    enum Action: Sendable, Equatable {
        /// Write the entry to the account's store (replacing its row).
        case persist(Record)
        /// Remove the entry's row.
        case remove(nonce: String)
        /// `POST /channels/{id}/messages` with the message's key, then report ``posted(_:key:outcome:now:)``;
        /// `generation` is the connection CONNECTED when it started, if one was.
        case post(Record, generation: UInt64?)
        /// Look for a message with the entry's nonce (or a key made from it) among the channel's messages after
        /// `floor`, then report ``lookedUp(_:result:now:)``.
        case lookUp(nonce: String, channel: String, floor: String)
        /// Upload the send's file at index `file` (checked against its stored SHA-256 first), then report
        /// ``uploaded(_:file:outcome:now:)``; ``uploadProgressed(_:file:progress:)`` meanwhile.
        case upload(Record, file: Int)
        /// Make an action's request (`PATCH`, `DELETE`, `PUT`), then report ``acted(_:outcome:now:)``.
        case act(Record)
        /// Read an action's message back, then report ``confirmed(_:result:now:)``.
        case confirm(Record)
        /// An action the server applied: the cache shows it (its event may not come, or come late).
        case applyToCache(Record, Message?)
        /// Wake the outbox at `at` (on the client's clock) with ``wake(ticket:now:)``.
        case watch(ticket: UInt64, at: Duration)
        /// Forget the wake-up with this ticket.
        case unwatch(ticket: UInt64)
        /// Tell the observers.
        case announce(OutboxEntry)
        /// The server's copy of the message, for the cache.
        case cache(Message)
        /// A send was refused `InSlowmode`: the channel's deadline (``StoatClient/restrictions``) is restated.
        case slowmodeRefused(channel: String, retryAfter: Duration)
        /// The socket of connection `generation` owes this message's event: the session's delivery deadline.
        case expectDelivery(key: String, generation: UInt64)
        /// The socket delivered the event the session was told to expect.
        case deliverySeen(key: String)
    }

    /// What the user asked of an entry, answered.
    enum Answer: Sendable, Equatable {
        case done
        case refused(String)
    }

    /// The longest wait between tries of an entry whose outcome is unknown or whose look-up failed.
    static let longestBackoff: Duration = .seconds(30)
    /// The wait before the second look after a `409` found nothing: long enough for a post in flight elsewhere
    /// (another API process) to be stored.
    static let conflictRecheck: Duration = .seconds(2)
    /// The slowmode's `retry_after` is whole seconds (Redis's rounded TTL): the wait is a second longer.
    static let slowmodeResolution: Duration = .seconds(1)
    /// The longest a slowmode refusal is waited out at once, whatever its `retry_after` says.
    static let longestSlowmodeWait: Duration = .seconds(86_400)
    /// The longest a rate limit is waited out at once, whatever its `retry_after` says.
    static let longestRateLimitWait: Duration = .seconds(300)
    /// The most keys one entry uses before it fails (`tooManyAttempts`): a server that refuses every key.
    static let maximumAttempts = 1000
    /// The most sent messages whose event is awaited at once; the oldest are forgotten beyond it.
    static let maximumAwaitedEchoes = 256

    /// What the entry does next once it may.
    enum Next: Sendable, Equatable {
        case post
        /// Look for it: after a network failure (`conflict` false) or a `409` (`conflict`, `look` 1 or 2).
        case lookUp(conflict: Bool, look: Int)
    }

    /// Where an entry is, in memory.
    enum Step: Sendable, Equatable {
        /// May go as soon as it is its channel's turn and the session is CONNECTED.
        case ready(Next)
        /// A post is in flight, started while connection `generation` was CONNECTED (nil: while none was).
        case posting(generation: UInt64?)
        /// The upload of the send's file at index `file` is in flight.
        case uploading(file: Int)
        /// A look-up is in flight.
        case lookingUp(conflict: Bool, look: Int)
        /// Waiting until `until` (a wake-up with `ticket`); with the slowmode's `retryAfter` when it waits one
        /// out.
        case waiting(until: Duration, ticket: UInt64, then: Next, retryAfter: Duration?)
        /// Refused for good.
        case failed
    }

    struct Entry: Sendable, Equatable {
        var record: Record
        var step: Step
        /// Tries since the last progress, for the backoff.
        var retries = 0
        /// While a file uploads: the bytes of the entry's files sent, of all of them.
        var progress: StoatFileServer.Progress?
        /// The connection a post that went unanswered started on, while it is being looked up: a look-up that
        /// finds the message owes its event on that connection (the socket that brought it would have resolved
        /// the entry first). `nil` after a conflict, which says only that an earlier post took the key.
        var unansweredPostOn: UInt64?

        var nonce: String { record.nonce }
    }

    /// The entries, in queue order: queued, sending and failed ones (a sent one leaves).
    private(set) var entries: [Entry] = []
    /// The connection that is CONNECTED, or `nil`.
    private(set) var connection: UInt64?
    /// Whether posts may go: the session holds its credentials and the device a network.
    private(set) var mayPost = false
    /// Slowmodes the server stated: channel → when it is surely over, on the client's clock.
    private(set) var slowmodes: [String: Duration] = [:]
    /// Sent messages whose event the session awaits: nonce and message id, oldest first.
    private(set) var awaitedEchoes: [(nonce: String, id: String)] = []
    private var lastTicket: UInt64 = 0
    /// The last position given.
    private(set) var lastPosition: Int64 = 0

    // MARK: - Reading

    /// The entries as observers see them, in queue order.
    var publicEntries: [OutboxEntry] { entries.map(Self.view) }

    /// An entry as observers see it.
    static func view(_ entry: Entry) -> OutboxEntry {
        OutboxEntry(
            nonce: entry.nonce, channel: entry.record.channel, message: entry.record.message,
            state: state(of: entry), kind: entry.record.entryKind, target: entry.record.target,
            emoji: entry.record.emoji,
            files: (entry.record.files ?? []).map { file in
                OutboxEntry.PendingFile(
                    path: file.path, filename: file.filename, size: file.size, sha256: file.sha256,
                    uploadedID: file.id)
            }, progress: entry.progress)
    }

    static func state(of entry: Entry) -> OutboxEntry.State {
        if let failure = entry.record.failure {
            return .failed(
                OutboxEntry.Failure(
                    code: failure.code, message: failure.message, mayHaveBeenSent: failure.mayHaveBeenSent ?? false))
        }
        switch entry.step {
        case .posting, .lookingUp, .uploading: return .sending
        case .waiting(_, _, _, let retryAfter?): return .queued(retryAfter: retryAfter)
        case .ready, .waiting, .failed: return entry.record.posted ? .sending : .queued(retryAfter: nil)
        }
    }

    /// The key of attempt `attempt`: the nonce, then `NONCE.2`, `NONCE.3`…
    static func key(nonce: String, attempt: Int) -> String {
        attempt <= 1 ? nonce : "\(nonce).\(attempt)"
    }

    /// Whether `key` (a message's `nonce`) is one of the keys of the entry named `nonce`.
    static func key(_ key: String, belongsTo nonce: String) -> Bool {
        guard key.hasPrefix(nonce) else { return false }
        let rest = key.utf8.dropFirst(nonce.utf8.count)
        guard let dot = rest.first else { return true }
        return dot == UInt8(ascii: ".") && rest.count > 1
            && rest.dropFirst().allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The longest nonce: room is left for `.` and the attempt within stoatchat's 64 characters.
    static let maximumNonceLength = 48

    // MARK: - The user

    /// Queues a message made by ``makeRecord(nonce:channel:message:floor:files:)`` (and persisted by the caller when
    /// a store is attached). A nonce already queued changes nothing.
    mutating func enqueue(_ record: Record, now: Duration) -> [Action] {
        guard !contains(record.nonce) else { return [] }
        let entry = Entry(record: record, step: .ready(.post))
        // Kept in position order: a send that took its position first is queued first.
        let index = entries.firstIndex { $0.record.position > record.position } ?? entries.endIndex
        entries.insert(entry, at: index)
        lastPosition = max(lastPosition, record.position)
        return [.announce(Self.view(entry))] + pump(now: now)
    }

    /// A new entry's record, with the next position in the queue (taken now, so concurrent sends keep their
    /// order).
    /// `files` (with their sizes and hashes as read when queued) make it format 3.
    mutating func makeRecord(
        nonce: String, channel: String, message: OutgoingMessage, floor: String,
        files: [Record.StoredFile] = []
    ) -> Record {
        lastPosition += 1
        return Record(
            version: files.isEmpty ? 1 : 3, nonce: nonce, channel: channel, content: message.content,
            attachments: message.attachments, replies: message.replies, masquerade: message.masquerade,
            flags: message.flags?.rawValue, position: lastPosition, floor: floor, files: files.isEmpty ? nil : files)
    }

    /// A new action's record (``OutboxEntry/Kind``, not a send), with the next position in the queue: format 2.
    mutating func makeActionRecord(
        nonce: String, kind: OutboxEntry.Kind, channel: String, target: String, text: String? = nil,
        emoji: String? = nil, user: String? = nil
    ) -> Record {
        lastPosition += 1
        return Record(
            version: 2, nonce: nonce, kind: kind, target: target, emoji: emoji, reactingUser: user, channel: channel,
            content: text, position: lastPosition, floor: "")
    }

    /// Whether an entry with this nonce is in the outbox.
    func contains(_ nonce: String) -> Bool { entries.contains { $0.nonce == nonce } }

    /// Drops a queued or failed entry, at the user's word. An entry being sent cannot be: its post or look-up
    /// is in flight, and the server may have it.
    mutating func discard(_ nonce: String) -> (Answer, [Action]) {
        guard let index = entries.firstIndex(where: { $0.nonce == nonce }) else {
            return (.refused("no entry \(nonce) in the outbox"), [])
        }
        let entry = entries[index]
        if case .sending = Self.state(of: entry) {
            return (.refused("\(nonce) is being sent"), [])
        }
        entries.remove(at: index)
        var actions: [Action] = [.remove(nonce: nonce)]
        if case .waiting(_, let ticket, _, _) = entry.step { actions.insert(.unwatch(ticket: ticket), at: 0) }
        return (.done, actions)
    }

    /// Posts a failed entry again, with a new key.
    mutating func resend(_ nonce: String, now: Duration) -> (Answer, [Action]) {
        guard let index = entries.firstIndex(where: { $0.nonce == nonce }) else {
            return (.refused("no entry \(nonce) in the outbox"), [])
        }
        guard entries[index].record.failure != nil else { return (.refused("\(nonce) has not failed"), []) }
        entries[index].record.failure = nil
        entries[index].retries = 0
        var actions = newKey(index)
        guard entries[index].record.failure == nil else { return (.done, actions) }
        entries[index].step = .ready(.post)
        actions += [.persist(entries[index].record), .announce(Self.view(entries[index]))]
        return (.done, actions + pump(now: now))
    }

    // MARK: - The session

    /// The session is CONNECTED on connection `generation`, or (`nil`) no longer; `mayPost` says whether the
    /// API may answer meanwhile (the session holds its credentials and the device a network). CONNECTED always may.
    mutating func sessionChanged(connected generation: UInt64?, mayPost: Bool, now: Duration) -> [Action] {
        let mayPost = mayPost || generation != nil
        guard generation != connection || mayPost != self.mayPost else { return [] }
        if generation != connection {
            connection = generation
            // Leaving CONNECTED cancels the session's delivery deadline: nothing is awaited any more.
            awaitedEchoes.removeAll()
        }
        self.mayPost = mayPost
        return pump(now: now)
    }

    /// The session is CONNECTED on connection `generation`, or (`nil`) neither connected nor able to post.
    mutating func connectionChanged(_ generation: UInt64?, now: Duration) -> [Action] {
        sessionChanged(connected: generation, mayPost: generation != nil, now: now)
    }

    /// The server states a slowmode in `channel` until `until` (on the client's clock), or (`nil`) that it is
    /// over: an entry waiting for it goes at once.
    mutating func slowmode(channel: String, until: Duration?, now: Duration) -> [Action] {
        slowmodes[channel] = until
        guard until == nil else { return [] }
        var actions: [Action] = []
        for index in entries.indices where entries[index].record.channel == channel {
            if case .waiting(_, let ticket, .post, _?) = entries[index].step {
                entries[index].step = .ready(.post)
                actions += [.unwatch(ticket: ticket), .announce(Self.view(entries[index]))]
            }
        }
        return actions + pump(now: now)
    }

    /// A post that started while the outbox knew no connection found the session CONNECTED on `generation` (the
    /// outbox hears of the session's states a moment after they happen): the post belongs to that connection, whose
    /// socket owes its echo, and the outbox takes the connection as CONNECTED.
    mutating func postStarted(_ nonce: String, key: String, on generation: UInt64, now: Duration) -> [Action] {
        guard let index = entries.firstIndex(where: { $0.nonce == nonce }), entries[index].record.key == key,
            case .posting(nil) = entries[index].step
        else { return [] }
        entries[index].step = .posting(generation: generation)
        return sessionChanged(connected: generation, mayPost: true, now: now)
    }

    // MARK: - Answers

    /// A post of `nonce` with `key` answered.
    mutating func posted(_ nonce: String, key: String, outcome: PostOutcome, now: Duration) -> [Action] {
        // An entry already resolved (its event came first, or the user discarded it) is not waiting for this.
        guard let index = entries.firstIndex(where: { $0.nonce == nonce }), entries[index].record.key == key,
            case .posting(let generation) = entries[index].step
        else { return [] }
        switch outcome {
        case .stored(let message):
            var actions = sent(index, message: message, cache: true)
            actions.append(contentsOf: awaitEcho(nonce: nonce, id: message.id, generation: generation))
            return actions + pump(now: now)
        case .refused(let failure):
            return fail(index, failure) + pump(now: now)
        case .slowmode(let retryAfter):
            entries[index].retries = 0
            var actions: [Action] = [.slowmodeRefused(channel: entries[index].record.channel, retryAfter: retryAfter)]
            actions += newKey(index)
            guard entries[index].record.failure == nil else { return actions + pump(now: now) }
            actions.append(.persist(entries[index].record))
            return actions
                + wait(index, until: now + retryAfter + Self.slowmodeResolution, then: .post, retryAfter: retryAfter)
        case .later(let delay):
            // Refused before the key's guard: the same key, later.
            return wait(index, until: now + (delay ?? backoff(index)), then: .post, retryAfter: nil)
        case .unknown(let conflict):
            entries[index].unansweredPostOn = conflict ? nil : generation
            entries[index].step = .ready(.lookUp(conflict: conflict, look: 1))
            return [.announce(Self.view(entries[index]))] + pump(now: now)
        }
    }

    /// The upload of a send's file answered: its id is kept (never uploaded again) and the next file, or the
    /// post, follows; a refusal fails the entry; no answer uploads it again — at once the first time (a lost
    /// answer), then after a backoff.
    mutating func uploaded(_ nonce: String, file: Int, outcome: UploadOutcome, now: Duration) -> [Action] {
        guard let index = entries.firstIndex(where: { $0.nonce == nonce }),
            case .uploading(file) = entries[index].step, entries[index].record.files?.indices.contains(file) == true
        else { return [] }
        entries[index].progress = nil
        switch outcome {
        case .stored(let id):
            entries[index].record.files?[file].id = id
            entries[index].retries = 0
            entries[index].step = .ready(.post)
            // Persisted before the next step: a restart does not upload it again.
            return [.persist(entries[index].record)] + pump(now: now)
        case .refused(let failure):
            return fail(index, failure) + pump(now: now)
        case .later(let delay):
            return wait(index, until: now + (delay ?? backoff(index)), then: .post, retryAfter: nil)
        case .unknown where entries[index].retries == 0:
            entries[index].retries = 1
            entries[index].step = .ready(.post)
            return [.announce(Self.view(entries[index]))] + pump(now: now)
        case .unknown:
            return wait(index, until: now + backoff(index), then: .post, retryAfter: nil)
        }
    }

    /// The upload of a send's file has sent `progress` of its request: the entry's progress is the bytes of
    /// its files sent (the form's framing left out), of all of them.
    mutating func uploadProgressed(_ nonce: String, file: Int, progress: StoatFileServer.Progress) -> [Action] {
        guard let index = entries.firstIndex(where: { $0.nonce == nonce }),
            case .uploading(file) = entries[index].step, let files = entries[index].record.files,
            files.indices.contains(file)
        else { return [] }
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        let done = files.indices.reduce(Int64(0)) { sum, other in
            other != file && files[other].id != nil ? sum + files[other].size : sum
        }
        let size = files[file].size
        let fraction = progress.total > 0 ? min(1, max(0, Double(progress.sent) / Double(progress.total))) : 0
        let sent = done + min(size, Int64((Double(size) * fraction).rounded(.down)))
        let next = StoatFileServer.Progress(sent: sent, total: total)
        guard entries[index].progress != next else { return [] }
        entries[index].progress = next
        return [.announce(Self.view(entries[index]))]
    }

    /// An action's request answered.
    mutating func acted(_ nonce: String, outcome: ActionOutcome, now: Duration) -> [Action] {
        guard let index = entries.firstIndex(where: { $0.nonce == nonce }), entries[index].record.isAction,
            case .posting = entries[index].step
        else { return [] }
        switch outcome {
        case .applied(let message):
            return done(index, message: message) + pump(now: now)
        case .alreadyApplied:
            return done(index, message: nil) + pump(now: now)
        case .refused(let failure):
            return fail(index, failure) + pump(now: now)
        case .later(let delay):
            return wait(index, until: now + (delay ?? backoff(index)), then: .post, retryAfter: nil)
        case .unknown:
            // Read the message back before anything is repeated.
            entries[index].step = .ready(.lookUp(conflict: false, look: 1))
            return [.announce(Self.view(entries[index]))] + pump(now: now)
        }
    }

    /// An action's message, read back after an answer that did not say whether it was applied (or after a
    /// restart with the request made): applied already, it is `sent`; not, the request is made again (each
    /// action is idempotent on the server, and was found not applied).
    mutating func confirmed(_ nonce: String, result: ConfirmResult, now: Duration) -> [Action] {
        guard let index = entries.firstIndex(where: { $0.nonce == nonce }), entries[index].record.isAction,
            case .lookingUp = entries[index].step
        else { return [] }
        let record = entries[index].record
        switch result {
        case .failed:
            return wait(index, until: now + backoff(index), then: .lookUp(conflict: false, look: 1), retryAfter: nil)
        case .refused(let refusal):
            let failure = OutboxEntry.Failure(
                code: refusal.code,
                message: "it may have been applied: the server refused to show the message that would confirm it "
                    + "(\(refusal.message))", mayHaveBeenSent: true)
            return fail(index, failure) + pump(now: now)
        case .gone:
            switch record.entryKind {
            case .delete, .unreact:
                // The message is gone: deleted (by this entry or anyone), its reactions with it.
                return done(index, message: nil) + pump(now: now)
            case .send, .edit, .react:
                return fail(
                    index,
                    OutboxEntry.Failure(
                        code: .api(.notFound), message: "the message \(record.target ?? "") is gone"))
                    + pump(now: now)
            }
        case .message(let message):
            guard !Self.isApplied(record, to: message) else { return done(index, message: message) + pump(now: now) }
            entries[index].retries += 1
            entries[index].step = .ready(.post)
            entries[index].record.posted = false
            return [.persist(entries[index].record)] + pump(now: now)
        }
    }

    /// Whether `message`, as the server has it, already shows what the action does.
    static func isApplied(_ record: Record, to message: Message) -> Bool {
        switch record.entryKind {
        case .send: return true
        case .edit: return message.content == record.content
        case .delete: return false
        case .react, .unreact:
            guard let emoji = record.emoji, let user = record.reactingUser else { return false }
            let present = message.reactions?[emoji]?.contains(user) == true
            return record.entryKind == .react ? present : !present
        }
    }

    /// A look-up of `nonce` answered.
    mutating func lookedUp(_ nonce: String, result: LookupResult, now: Duration) -> [Action] {
        guard let index = entries.firstIndex(where: { $0.nonce == nonce }),
            case .lookingUp(let conflict, let look) = entries[index].step
        else { return [] }
        switch result {
        case .found(let message):
            let generation = entries[index].unansweredPostOn
            return sent(index, message: message, cache: true)
                + awaitEcho(nonce: nonce, id: message.id, generation: generation) + pump(now: now)
        case .failed:
            return wait(
                index, until: now + backoff(index), then: .lookUp(conflict: conflict, look: look), retryAfter: nil)
        case .refused(let refusal):
            let failure = OutboxEntry.Failure(
                code: refusal.code,
                message: "it may have been sent: the server refused to show the channel's messages that would "
                    + "confirm it (\(refusal.message))", mayHaveBeenSent: true)
            return fail(index, failure) + pump(now: now)
        case .notFound where !conflict:
            // Not stored: post the same key again; if the first post did arrive meanwhile, the key is refused.
            return wait(index, until: now + backoff(index), then: .post, retryAfter: nil)
        case .notFound where look < 2:
            return wait(
                index, until: now + Self.conflictRecheck, then: .lookUp(conflict: true, look: 2), retryAfter: nil)
        case .notFound:
            // Twice not found after a 409: the key was consumed without a post. A new key.
            var actions = newKey(index)
            guard entries[index].record.failure == nil else { return actions + pump(now: now) }
            entries[index].step = .ready(.post)
            actions.append(.persist(entries[index].record))
            return actions + pump(now: now)
        }
    }

    /// The socket delivered a message: an entry it names (by any of its keys, or by the id the server gave it)
    /// is sent; a sent one whose event was awaited is seen.
    mutating func delivered(_ message: Message, now: Duration) -> [Action] {
        if let index = entries.firstIndex(where: { entry in
            !entry.record.isAction && message.nonce.map { Self.key($0, belongsTo: entry.nonce) } == true
        }) {
            return sent(index, message: message, cache: false) + pump(now: now)
        }
        guard
            let index = awaitedEchoes.firstIndex(where: { awaited in
                awaited.id == message.id || message.nonce.map { Self.key($0, belongsTo: awaited.nonce) } == true
            })
        else { return [] }
        let awaited = awaitedEchoes.remove(at: index)
        return [.deliverySeen(key: awaited.nonce)]
    }

    /// A wake-up fired.
    mutating func wake(ticket: UInt64, now: Duration) -> [Action] {
        guard
            let index = entries.firstIndex(where: { entry in
                if case .waiting(_, ticket, _, _) = entry.step { return true }
                return false
            }), case .waiting(_, _, let next, _) = entries[index].step
        else { return [] }
        entries[index].step = .ready(next)
        return [.announce(Self.view(entries[index]))] + pump(now: now)
    }

    // MARK: - The store

    /// Entries read back from the account's store at sign-in: one whose key was posted is looked for first
    /// (the process may have stopped before the answer), a failed one stays failed.
    mutating func restore(_ records: [Record], now: Duration) -> [Action] {
        var actions: [Action] = []
        for record in records.sorted(by: { $0.position < $1.position }) where !contains(record.nonce) {
            let step: Step =
                record.failure != nil
                ? .failed : record.posted ? .ready(.lookUp(conflict: false, look: 1)) : .ready(.post)
            let entry = Entry(record: record, step: step)
            entries.append(entry)
            lastPosition = max(lastPosition, record.position)
            actions.append(.announce(Self.view(entry)))
        }
        entries.sort { $0.record.position < $1.record.position }
        return actions + pump(now: now)
    }

    /// Forgets everything (the session was disposed of); returns the entries that were not sent.
    mutating func reset() -> (entries: [OutboxEntry], actions: [Action]) {
        let dropped = publicEntries
        var actions: [Action] = []
        for entry in entries {
            if case .waiting(_, let ticket, _, _) = entry.step { actions.append(.unwatch(ticket: ticket)) }
        }
        entries = []
        connection = nil
        slowmodes = [:]
        awaitedEchoes = []
        mayPost = false
        return (dropped, actions)
    }

    // MARK: - Deciding

    /// Starts what may start: the first unfailed entry of each channel, while posts may go.
    private mutating func pump(now: Duration) -> [Action] {
        guard mayPost else { return [] }
        let generation = connection
        var actions: [Action] = []
        var busy: Set<String> = []
        for index in entries.indices {
            let channel = entries[index].record.channel
            guard entries[index].record.failure == nil, !busy.contains(channel) else { continue }
            busy.insert(channel)
            guard case .ready(let next) = entries[index].step else { continue }
            switch next {
            case .post:
                if entries[index].record.isAction {
                    entries[index].step = .posting(generation: generation)
                    let firstRequest = !entries[index].record.posted
                    entries[index].record.posted = true
                    // Persisted before the request: a restart in between reads the message back first.
                    if firstRequest { actions.append(.persist(entries[index].record)) }
                    actions += [.announce(Self.view(entries[index])), .act(entries[index].record)]
                    continue
                }
                if let file = entries[index].record.pendingUpload {
                    // A file to upload first: the message is posted once every file has its id.
                    entries[index].step = .uploading(file: file)
                    entries[index].progress = nil
                    actions += [.announce(Self.view(entries[index])), .upload(entries[index].record, file: file)]
                    continue
                }
                if let until = slowmodes[channel], until > now {
                    // A known slowmode: waited out before posting, shown as the time left.
                    actions += wait(index, until: until, then: .post, retryAfter: until - now)
                    continue
                }
                entries[index].step = .posting(generation: generation)
                let firstPost = !entries[index].record.posted
                entries[index].record.posted = true
                // Persisted before the post: a restart in between looks for the message before posting again.
                if firstPost { actions.append(.persist(entries[index].record)) }
                actions += [.announce(Self.view(entries[index])), .post(entries[index].record, generation: generation)]
            case .lookUp(let conflict, let look):
                entries[index].step = .lookingUp(conflict: conflict, look: look)
                let record = entries[index].record
                if record.isAction {
                    actions += [.announce(Self.view(entries[index])), .confirm(record)]
                    continue
                }
                actions += [
                    .announce(Self.view(entries[index])),
                    .lookUp(nonce: record.nonce, channel: record.channel, floor: record.floor),
                ]
            }
        }
        return actions
    }

    /// The entry is sent: it leaves the outbox.
    private mutating func sent(_ index: Int, message: Message, cache: Bool) -> [Action] {
        var entry = entries.remove(at: index)
        var actions: [Action] = []
        if case .waiting(_, let ticket, _, _) = entry.step { actions.append(.unwatch(ticket: ticket)) }
        entry.record.failure = nil
        var view = Self.view(entry)
        view.state = .sent(messageID: message.id)
        actions += [.remove(nonce: entry.nonce), .announce(view)]
        if cache { actions.append(.cache(message)) }
        return actions
    }

    /// The action is applied (or found applied): it leaves the outbox, `sent` with its target's id.
    private mutating func done(_ index: Int, message: Message?) -> [Action] {
        var entry = entries.remove(at: index)
        var actions: [Action] = []
        if case .waiting(_, let ticket, _, _) = entry.step { actions.append(.unwatch(ticket: ticket)) }
        entry.record.failure = nil
        var view = Self.view(entry)
        view.state = .sent(messageID: entry.record.target ?? "")
        actions += [.remove(nonce: entry.nonce), .applyToCache(entry.record, message), .announce(view)]
        return actions
    }

    /// The server owes the message's event on connection `generation` (none when the post started without one).
    private mutating func awaitEcho(nonce: String, id: String, generation: UInt64?) -> [Action] {
        guard let generation, connection == generation else { return [] }
        awaitedEchoes.append((nonce, id))
        if awaitedEchoes.count > Self.maximumAwaitedEchoes { awaitedEchoes.removeFirst() }
        return [.expectDelivery(key: nonce, generation: generation)]
    }

    private mutating func fail(_ index: Int, _ failure: OutboxEntry.Failure) -> [Action] {
        entries[index].record.failure = Record.Failure(
            code: failure.code, message: failure.message, mayHaveBeenSent: failure.mayHaveBeenSent ? true : nil)
        entries[index].step = .failed
        return [.persist(entries[index].record), .announce(Self.view(entries[index]))]
    }

    /// The next key: the one in use was consumed without a post. Past ``maximumAttempts`` the entry fails.
    private mutating func newKey(_ index: Int) -> [Action] {
        guard entries[index].record.attempt < Self.maximumAttempts else {
            return fail(
                index,
                OutboxEntry.Failure(
                    code: .tooManyAttempts,
                    message: "the server refused \(Self.maximumAttempts) keys for this message without storing it"))
        }
        entries[index].record.attempt += 1
        entries[index].record.posted = false
        return []
    }

    private mutating func wait(_ index: Int, until: Duration, then next: Next, retryAfter: Duration?) -> [Action] {
        lastTicket += 1
        entries[index].retries += 1
        entries[index].step = .waiting(until: until, ticket: lastTicket, then: next, retryAfter: retryAfter)
        return [.watch(ticket: lastTicket, at: until), .announce(Self.view(entries[index]))]
    }

    /// 1 s, 2 s, 4 s … up to ``longestBackoff``, by the entry's tries since its last progress.
    private func backoff(_ index: Int) -> Duration {
        let exponent = min(entries[index].retries, 5)
        return min(.seconds(1 << exponent), Self.longestBackoff)
    }
}

extension Outbox.Action {
    /// The entry an announcement is about.
    var announced: OutboxEntry? {
        if case .announce(let entry) = self { return entry }
        return nil
    }
}

extension StoatAPIError {
    /// What every outbox request's failure reads the same way, whichever route refused it: no answer (the
    /// network, a timeout, a cancelled call), an unreadable answer or a `5xx` is `.unknown`;
    /// the rate limiter's `429` or a `401` (both refuse before the route runs) is the same request later, after
    /// the server's `retry_after` bounded by ``Outbox/longestRateLimitWait`` (a backoff when `nil`). `nil` for
    /// every other failure, which the route's own reading decides.
    var outboxTransient: Outbox.Transient? {
        switch code {
        case .network, .timeout, .cancelled, .malformedResponse: .unknown
        case .rateLimited: .later(self.retryAfter.map { min(max($0, .zero), Outbox.longestRateLimitWait) })
        case _ where isInvalidSession: .later(nil)
        case _ where (self.status ?? 0) >= 500: .unknown
        default: nil
        }
    }

    /// A failure the outbox keeps for good: the server's kind as its code, else the error's.
    var outboxFailure: OutboxEntry.Failure {
        OutboxEntry.Failure(code: .init(rawValue: self.kind ?? code.rawValue), message: message)
    }
}

extension Outbox.PostOutcome {
    /// How the outbox reads a post's failure (stoatchat's `message_send.rs` and its request guards):
    ///
    /// - a `409` of any shape (Rocket's catcher for a reused key, a `DuplicateNonce` body, a page): unknown,
    ///   the key consumed;
    /// - no answer (the network, a timeout, a cancelled call), an unreadable answer, or a `5xx`: unknown;
    /// - `InSlowmode`: wait its `retry_after`, the key consumed;
    /// - the rate limiter's `429` or a `401` (both refuse before the key's guard runs): the same key later;
    /// - anything else (a missing permission — a timeout in the server included —, an empty or too long message,
    ///   an unknown channel, a refused redirect, a malformed request): refused for good, with the error's code.
    init(_ error: StoatAPIError) {
        if error.status == 409 {
            self = .unknown(conflict: true)
            return
        }
        switch (error.code, error.outboxTransient) {
        case (_, .unknown?):
            self = .unknown(conflict: false)
        case (_, .later(let wait)?):
            self = .later(wait)
        case (.inSlowmode, nil):
            // The server's number, bounded: a day at most, then the post is tried (and refused) again.
            let retryAfter = min(max(error.retryAfter ?? .seconds(1), .zero), Outbox.longestSlowmodeWait)
            self = .slowmode(retryAfter: retryAfter)
        default:
            self = .refused(error.outboxFailure)
        }
    }
}

extension Outbox.UploadOutcome {
    /// How the outbox reads an upload's failure (stoatchat's `crates/services/autumn/src/api.rs`):
    ///
    /// - no answer (the network, a timeout, a cancelled call), an unreadable answer, or a `5xx`: unknown — the
    ///   file is uploaded again (an upload no message claims stays an orphan on the server);
    /// - the rate limiter's `429` or a `401`: the same upload later;
    /// - `FileTooLarge` (the root document's limit, before a byte is sent, or the server's `422 {max}`): refused,
    ///   with the limit in the reason; a file the client cannot read: `fileUnreadable`;
    /// - anything else (`FileTooSmall`, `FileTypeNotAllowed`, no file server named…): refused for good.
    init(_ error: StoatAPIError, filename: String) {
        if let transient = error.outboxTransient {
            self = transient.upload
            return
        }
        switch error.code {
        case .fileTooLarge:
            let limit = error.limit.map { " of \($0) bytes" } ?? ""
            self = .refused(
                OutboxEntry.Failure(
                    code: .api(.fileTooLarge), message: "the file \(filename) is over the server's upload limit\(limit)"
                ))
        case .invalidRequest where error.status == nil:
            self = .refused(
                OutboxEntry.Failure(
                    code: .fileUnreadable, message: "the file \(filename) can no longer be read: \(error.message)"))
        default:
            self = .refused(error.outboxFailure)
        }
    }
}

extension Outbox.ActionOutcome {
    /// How the outbox reads an action's failure (stoatchat's message routes):
    ///
    /// - no answer (the network, a timeout, a cancelled call), an unreadable answer, or a `5xx`: unknown — the
    ///   message is read back before anything is repeated;
    /// - `NotFound` to a delete (the message is gone) or an unreact (the user's reaction, or the message, is
    ///   gone): already applied;
    /// - the rate limiter's `429` or a `401` (both refuse before the route runs): the same request later;
    /// - anything else (`MissingPermission`, `CannotEditMessage`, `NotFound` to an edit or a react,
    ///   `InvalidOperation` for an emoji that cannot be used…): refused for good, with the server's reason.
    init(_ error: StoatAPIError, kind: OutboxEntry.Kind) {
        if let transient = error.outboxTransient {
            self = transient.action
            return
        }
        switch error.code {
        case .notFound where kind == .delete || kind == .unreact:
            self = .alreadyApplied
        default:
            self = .refused(error.outboxFailure)
        }
    }
}
