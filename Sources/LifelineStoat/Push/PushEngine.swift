import Lifeline
import LifelineCore
import Logging
import Synchronization

/// Subscribes the device to Web Push for each session once it is CONNECTED.
///
/// stoatchat keeps the subscription on the session (`crates/delta/src/routes/push/subscribe.rs`), so it is sent
/// again for every new session, and never before the session has authenticated: CONNECTED means the socket
/// accepted the token, so the subscription is not refused with `401` as one sent before login is
/// (stoatchat#527). A reconnect of the same session sends nothing.
final class PushEngine: Sendable {
    private struct State {
        var subscription: WebPushSubscription?
        /// The session the server holds the subscription on.
        var subscribedSession: SessionCredentials?
        var status = PushStatus.off
    }

    /// The observers' key in the cache's change signals.
    static let signalKey = ChangeKey.push

    private let state = Mutex(State())
    private let gate = SerialGate()
    private let api: StoatAPI
    private let credentials: ClientCaches.Credentials
    private let signals: ChangeSignals
    private let logger: Logger

    init(api: StoatAPI, credentials: ClientCaches.Credentials, signals: ChangeSignals, logger: Logger) {
        self.api = api
        self.credentials = credentials
        self.signals = signals
        self.logger = logger
    }

    var status: PushStatus { state.withLock { $0.status } }

    /// Follows the session's moments (its hooks, through the client): at every CONNECTED, subscribes its session
    /// if it does not hold the subscription; once the session has ended (a logout, or ERROR), the server has
    /// dropped the subscription with it, so it is pending again until the next session is CONNECTED.
    func run(lifecycle: AsyncStream<ClientLifecycle>) async {
        for await moment in lifecycle {
            switch moment {
            case .connected: await ensure()
            case .ended: sessionEnded()
            case .leftConnected, .entered: break
            }
        }
    }

    /// Marks the subscription pending: the session that held it is gone.
    private func sessionEnded() {
        let changed = state.withLock { state -> Bool in
            guard state.subscription != nil, state.subscribedSession != nil else { return false }
            state.subscribedSession = nil
            state.status = .pending
            return true
        }
        if changed { signals.signal([Self.signalKey]) }
    }

    /// Remembers the subscription; sends it now when the session is CONNECTED.
    func subscribe(_ subscription: WebPushSubscription, connected: Bool) async {
        let changed = state.withLock { state -> Bool in
            guard state.subscription != subscription else { return false }
            state.subscription = subscription
            state.subscribedSession = nil
            state.status = .pending
            return true
        }
        if changed { signals.signal([Self.signalKey]) }
        if connected { await ensure() }
    }

    /// Forgets the subscription, and removes it from the server when the current session holds it.
    func unsubscribe() async throws(StoatAPIError) {
        let result: Result<Void, StoatAPIError> = await gate.run {
            let held = state.withLock { state -> SessionCredentials? in
                defer {
                    state.subscription = nil
                    state.subscribedSession = nil
                    state.status = .off
                }
                return state.subscribedSession
            }
            signals.signal([Self.signalKey])
            guard let held, held == credentials.value else { return .success(()) }
            do throws(StoatAPIError) {
                try await api.unsubscribePush(held)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Sends the subscription for the current session, unless it holds it already.
    private func ensure() async {
        await gate.run {
            guard let session = credentials.value else { return }
            let subscription = state.withLock { state -> WebPushSubscription? in
                guard let subscription = state.subscription, state.subscribedSession != session else { return nil }
                return subscription
            }
            guard let subscription else { return }
            let status: PushStatus
            do throws(StoatAPIError) {
                try await api.subscribePush(subscription, session)
                status = .subscribed
            } catch {
                logger.info("the push subscription was not accepted", metadata: ["lifeline.error": "\(error.code)"])
                status = .failed(error)
            }
            state.withLock { state in
                // Withdrawn or replaced meanwhile: that decision stands.
                guard state.subscription == subscription else { return }
                state.status = status
                if status == .subscribed { state.subscribedSession = session }
            }
            signals.signal([Self.signalKey])
        }
    }
}
