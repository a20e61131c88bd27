public import Foundation
public import LifelineCore
public import LifelineStoat
public import LifelineStore
public import Observation

/// The device's accounts across servers for SwiftUI: each account the store keeps, with its unread count once
/// it is signed in, and the one the app shows.
///
/// ```swift
/// @State var accounts = AccountsModel(store: store) { server in StoatClient(apiURL: server) }
///
/// var body: some View {
///     AccountSwitcher(accounts: accounts.accounts, shown: accounts.shownID) { id in accounts.show(id) }
///         .task { await accounts.run() }
/// }
/// // signing in one more: await accounts.signIn(account: id, password: password)
/// ```
///
/// Each signed-in account has a `StoatClient` of its own (its server's), run by ``run()``. **Every signed-in
/// account stays connected**, the shown one and the others alike: its unread count and mentions stay live (a
/// badge in the switcher), its push subscription stays on its session, its outbox keeps sending, and switching
/// shows a screen that is already current — which is what Lifeline is for. One idle socket per account costs a
/// heartbeat every 30 s; an app that wants fewer signs an account out (``signOut(_:)``, which logs its session
/// out) rather than leaving a session half-alive. An account that is not signed in shows what its store tells
/// without the password: its label and server, and no unread count (its chats are sealed).
@MainActor
@Observable
public final class AccountsModel {
    /// One account of the device, as the switcher lists it.
    public struct Account: Sendable, Hashable, Identifiable {
        /// The account's identifier in the store (`StoredAccount.id`).
        public var id: StoredAccount.ID
        /// The label the store keeps (the username), if set.
        public var label: String?
        /// The server the account belongs to, if the store names it.
        public var server: ServerIdentity?
        /// Whether a client is signed in to it.
        public var isSignedIn: Bool
        /// How many chats have messages the user has not read; `nil` while not signed in.
        public var unreadChats: Int?
        /// How many messages mention the user, over every chat; `nil` while not signed in.
        public var mentions: Int?
        /// Its session's state; `nil` while not signed in.
        public var state: SessionState?

        /// Creates an entry.
        public init(
            id: StoredAccount.ID, label: String?, server: ServerIdentity?, isSignedIn: Bool = false,
            unreadChats: Int? = nil, mentions: Int? = nil, state: SessionState? = nil
        ) {
            self.id = id
            self.label = label
            self.server = server
            self.isSignedIn = isSignedIn
            self.unreadChats = unreadChats
            self.mentions = mentions
            self.state = state
        }
    }

    /// The device's accounts: the store's, most recently used first, with the signed-in ones' counts.
    public private(set) var accounts: [Account] = []
    /// The account the app shows, if any: the first signed in, until ``show(_:)`` picks another.
    public private(set) var shownID: StoredAccount.ID?
    /// Why the store's accounts could not be listed, if they could not.
    public private(set) var storeError: StoreError?

    /// The directory of account stores.
    @ObservationIgnored public let store: AccountStore
    @ObservationIgnored let makeClient: @MainActor (URL) -> StoatClient
    @ObservationIgnored private var clients: [StoredAccount.ID: StoatClient] = [:]
    @ObservationIgnored private var models: [StoredAccount.ID: StoatClientModel] = [:]
    @ObservationIgnored private let runs: AsyncStream<Run>
    @ObservationIgnored private let startRun: AsyncStream<Run>.Continuation
    @ObservationIgnored private var stops: [StoredAccount.ID: AsyncStream<Void>.Continuation] = [:]

    /// A client to run, and how to stop it.
    private struct Run: Sendable {
        var id: StoredAccount.ID
        var client: StoatClient
        var stop: AsyncStream<Void>
    }

    /// Creates the model and lists the store's accounts.
    ///
    /// - Parameters:
    ///   - store: The directory of account stores.
    ///   - makeClient: Makes the client of an account, for its server's API URL (the account's
    ///     `StoredAccount.server`, or the URL a sign-in names).
    public init(store: AccountStore, makeClient: @escaping @MainActor (URL) -> StoatClient) {
        self.store = store
        self.makeClient = makeClient
        (runs, startRun) = AsyncStream.makeStream(of: Run.self)
        refresh()
    }

    /// The total of unread chats over the signed-in accounts.
    public var totalUnreadChats: Int { accounts.reduce(0) { $0 + ($1.unreadChats ?? 0) } }

    /// The client of a signed-in account.
    ///
    /// - Parameter id: The account's identifier.
    public func client(for id: StoredAccount.ID) -> StoatClient? { clients[id] }

    /// The model of a signed-in account, for its screens (one per account, made once).
    ///
    /// - Parameter id: The account's identifier.
    public func model(for id: StoredAccount.ID) -> StoatClientModel? {
        if let model = models[id] { return model }
        guard let client = clients[id] else { return nil }
        let model = StoatClientModel(client: client)
        models[id] = model
        return model
    }

    /// The shown account's model.
    public var shown: StoatClientModel? { shownID.flatMap(model(for:)) }

    /// Shows a signed-in account.
    ///
    /// - Parameter id: The account's identifier.
    /// - Returns: Whether it is signed in (and now shown).
    @discardableResult
    public func show(_ id: StoredAccount.ID) -> Bool {
        guard clients[id] != nil else { return false }
        if shownID != id { shownID = id }
        return true
    }

    /// Lists the store's accounts again (after one was added or erased elsewhere).
    public func refresh() {
        do {
            let stored = try store.accounts()
            storeError = nil
            var listed = stored.map { account in
                accounts.first { $0.id == account.id }.map { known in
                    var entry = known
                    entry.label = account.label
                    entry.server = account.server
                    return entry
                } ?? Account(id: account.id, label: account.label, server: account.server)
            }
            // A signed-in account the store no longer lists stays until it is signed out.
            for known in accounts where known.isSignedIn && !listed.contains(where: { $0.id == known.id }) {
                listed.append(known)
            }
            if listed != accounts { accounts = listed }
        } catch {
            storeError = error
        }
    }

    // MARK: - Signing in and out

    /// Signs in to an account the store lists, with its password, on a client of its own that ``run()`` runs.
    ///
    /// - Parameters:
    ///   - id: The account's identifier.
    ///   - password: The password.
    ///   - apiURL: The server's API URL; the account's `StoredAccount.server` by default (required for an
    ///     account the store does not bind to a server yet).
    /// - Returns: The store's outcome (a second factor is finished with the account's client:
    ///   `client(for:)`'s `continueSignIn(_:with:)`).
    public func signIn(account id: StoredAccount.ID, password: String, apiURL: URL? = nil) async -> SignInOutcome {
        let server = accounts.first { $0.id == id }?.server
        guard let url = apiURL ?? server.flatMap({ URL(string: $0.description) }) else {
            return .storageFailure(
                StoreError(code: .invalidParameter, message: "The account names no server: give its API URL"))
        }
        let client = clients[id] ?? start(id: id, client: makeClient(url))
        let outcome = await client.signIn(to: store, account: id, password: password)
        settle(id, outcome)
        return outcome
    }

    /// Signs in to an account by email on a server (a new account on this device, or one already kept).
    ///
    /// - Parameters:
    ///   - apiURL: The server's API URL.
    ///   - email: The account's email.
    ///   - password: The password.
    /// - Returns: The store's outcome.
    public func signIn(apiURL: URL, email: String, password: String) async -> SignInOutcome {
        guard let server = ServerIdentity(apiURL.absoluteString) else {
            return .storageFailure(
                StoreError(code: .invalidParameter, message: "The API URL is not an http or https URL"))
        }
        let id = store.accountID(email: email, server: server)
        let client = clients[id] ?? start(id: id, client: makeClient(apiURL))
        let outcome = await client.signIn(to: store, email: email, password: password)
        refresh()
        settle(id, outcome)
        return outcome
    }

    /// Logs an account's session out and stops its client; its store stays on the device (listed, sealed).
    ///
    /// - Parameter id: The account's identifier.
    public func signOut(_ id: StoredAccount.ID) async {
        guard let client = clients[id] else { return }
        _ = await client.logOut()
        stop(id)
    }

    /// Runs every signed-in account's client and follows its chats and session, until the calling task is
    /// cancelled; accounts signed in later join. Call it once, from the app's root view (`.task`).
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await run in runs {
                group.addTask {
                    await withDiscardingTaskGroup { runner in
                        runner.addTask { await run.client.run() }
                        runner.addTask { await self.follow(run.id, run.client) }
                        // Until the account is signed out (or the model's run is cancelled).
                        for await _ in run.stop {}
                        runner.cancelAll()
                    }
                }
            }
        }
    }

    // MARK: - Following the clients

    /// Makes `client` the account's and has ``run()`` run it.
    private func start(id: StoredAccount.ID, client: StoatClient) -> StoatClient {
        clients[id] = client
        let (stop, stopping) = AsyncStream.makeStream(of: Void.self)
        stops[id] = stopping
        startRun.yield(Run(id: id, client: client, stop: stop))
        return client
    }

    /// Keeps the client of a sign-in that started a session (or asks for a second factor); stops any other.
    private func settle(_ id: StoredAccount.ID, _ outcome: SignInOutcome) {
        switch outcome {
        case .secondFactorRequired:
            return
        default:
            guard outcome.session != nil else {
                stop(id)
                return
            }
        }
        update(id) { $0.isSignedIn = true }
        if shownID == nil { shownID = id }
    }

    private func stop(_ id: StoredAccount.ID) {
        stops.removeValue(forKey: id)?.finish()
        clients[id] = nil
        models[id] = nil
        update(id) { entry in
            entry.isSignedIn = false
            entry.unreadChats = nil
            entry.mentions = nil
            entry.state = nil
        }
        if shownID == id { shownID = clients.keys.sorted().first }
    }

    private func follow(_ id: StoredAccount.ID, _ client: StoatClient) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await chats in client.chatUpdates {
                    let unread = chats.count { $0.isUnread }
                    let mentions = chats.reduce(0) { $0 + $1.mentionCount }
                    await self.update(id, of: client) { entry in
                        entry.unreadChats = unread
                        entry.mentions = mentions
                    }
                }
            }
            group.addTask {
                for await snapshot in client.session.states {
                    await self.update(id, of: client) { $0.state = snapshot.state }
                }
            }
        }
    }

    /// Changes an account's entry from what `client` reports, while it is still the account's client.
    private func update(_ id: StoredAccount.ID, of client: StoatClient, _ change: (inout Account) -> Void) {
        guard clients[id] === client else { return }
        update(id, change)
    }

    /// Changes an account's entry, assigning ``accounts`` only when it changed.
    private func update(_ id: StoredAccount.ID, _ change: (inout Account) -> Void) {
        guard let index = accounts.firstIndex(where: { $0.id == id }) else { return }
        var entry = accounts[index]
        change(&entry)
        if entry != accounts[index] { accounts[index] = entry }
    }
}
