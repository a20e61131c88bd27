import Lifeline
import Logging

/// Runs a ``StoatClient``'s ``AckQueue``: the user's acknowledgements go in (already shown in the cache), the
/// queue's requests go out on the client's clock, one at a time per channel, and a refusal is undone in the cache.
///
/// The engine runs on Lifeline's `EngineDriver`: the queue is behind its lock; what it decides is posted to its
/// stream that ``run()`` performs in order: wake-ups in its one timer (one sleep however many channels wait),
/// requests as child tasks of `run`, so nothing outlives it.
final class AckEngine: Sendable {
    /// The queue behind the driver's lock, its actions posted to the driver's stream, its wake-ups in its timer.
    private let driver: EngineDriver<AckQueue, AckQueue.Action, Watch<String>>
    private let api: StoatAPI
    private let cache: CacheEngine
    private let credentials: ClientCaches.Credentials
    private let logger: Logger

    init(
        api: StoatAPI, cache: CacheEngine, credentials: ClientCaches.Credentials, clock: some Clock<Duration>,
        logger: Logger
    ) {
        driver = EngineDriver(AckQueue(), clock: SessionClock(clock))
        self.api = api
        self.cache = cache
        self.credentials = credentials
        self.logger = logger
    }

    /// The user read `channel` up to `message`: the chat shows it read at once; the request follows.
    func acknowledge(channel: String, message: String) {
        var before = ReadState()
        let marked = cache.mutate { cache in
            before = cache.readState(of: channel)
            // Already read up to there (here, on another device, or by the server's read states): nothing to send,
            // and sending an older id would move the server's marker back.
            guard before.lastRead.map({ $0 < message }) ?? true else { return (false, AccountCache.Changes()) }
            var changes = AccountCache.Changes()
            cache.acknowledged(channel: channel, message: message, into: &changes)
            changes.chats = true
            return (true, changes)
        }
        guard marked else { return }
        apply { $0.asked(channel: channel, message: message, before: before, now: $1) }
    }

    /// The session was disposed of: nothing of the last account's is sent.
    func disposed() {
        driver.withLock { $0.reset() }
    }

    /// Performs the queue's actions until the calling task is cancelled.
    func run() async {
        await driver.run { due in
            for watch in due { self.apply { $0.woke(channel: watch.id, now: $1) } }
        } perform: { action in
            switch action {
            case .wake(let channel, let at):
                self.driver.schedule(Watch(id: channel), at: at)
            case .send(let channel, let message):
                return { await self.send(message, in: channel) }
            case .undo(let channel, let upTo, let restore):
                self.cache.update { cache in
                    var changes = AccountCache.Changes()
                    cache.ackRefused(channel: channel, upTo: upTo, restore: restore, into: &changes)
                    return changes
                }
            }
            return nil
        }
    }

    private func send(_ message: String, in channel: String) async {
        // Another device (or the server's read states) moved the marker past it: sending it would move it back.
        let passed = cache.read { cache in cache.readState(of: channel).lastRead.map { $0 > message } ?? false }
        let answer: AckQueue.Answer
        if passed {
            answer = .accepted
        } else if let credentials = credentials.value {
            do {
                try await api.acknowledge(message, in: channel, credentials)
                answer = .accepted
            } catch {
                if error.code == .cancelled, Task.isCancelled { return }  // the client is stopping
                answer = Self.answer(error)
                logger.info(
                    "an acknowledgement failed",
                    metadata: ["lifeline.error": "\(error.code)", "lifeline.retry": "\(answer == .retry)"])
            }
        } else {
            answer = .retry
        }
        apply { $0.answered(channel: channel, message: message, answer, now: $1) }
    }

    /// How a failed request reads: a refusal the server stated (a 4xx, or a 5xx after its `ChannelAck` went out),
    /// or nothing said (the network, a timeout, the rate limiter, a session being renewed).
    static func answer(_ error: StoatAPIError) -> AckQueue.Answer {
        switch error.code {
        case .network, .timeout, .cancelled, .rateLimited: return .retry
        default: break
        }
        guard let status = error.status else { return error.isInvalidSession ? .retry : .refused }
        return status == 401 || status == 408 || status == 429 ? .retry : .refused
    }

    /// Runs one fact through the queue with the current time, and posts what it decided, in order.
    private func apply(_ fact: (inout AckQueue, Duration) -> [AckQueue.Action]) {
        let now = driver.now
        driver.withLock { queue in
            for action in fact(&queue, now) { driver.post(action) }
        }
    }
}
