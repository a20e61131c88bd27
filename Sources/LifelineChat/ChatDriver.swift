public import LifelineStoatStore
public import LifelineTerminal
import Observation

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The thin loop of `lifeline chat`: events in (keys, the models' changes, a countdown's tick), the reducer, its
/// effects on the client and its models, a frame out.
///
/// Nothing polls: the models' changes arrive through Observation, keys through the program's input stream, and a
/// timer is set only while a countdown is on screen (``ChatScreen/nextChange(_:)``), so an idle client costs no
/// CPU. Runs on the main actor, where the models live.
@MainActor
public final class ChatDriver {
    /// A frame to draw: the grid, where the cursor stands and what changed since the frame before, as
    /// LifelineTerminal's `Terminal.draw(_:cursor:changes:)` takes them (its renderer compares the changed rows
    /// with what it drew last and lets the terminal scroll the moved ones).
    public struct Frame: Sendable {
        /// The screen's cells.
        public var grid: Grid
        /// Where the cursor stands: the focused field's insertion point, or hidden.
        public var cursor: Cursor
        /// What changed since the frame built before (``ChatFrameBuilder/changes``), `nil` for a frame drawn whole.
        public var changes: FrameChanges?
    }

    /// What the driver signs in with, and how it tells the demo world to misbehave.
    public struct Configuration: Sendable {
        /// Whether the server is the embedded demo world.
        public var mode: ChatState.Mode
        /// The email the login form starts with.
        public var email: String
        /// The password the login form starts with (the demo world's, which is shown anyway).
        public var password: String
        /// Lines the login screen shows under its title (``ChatState/loginHints``).
        public var loginHints: [String]
        /// The time zone of the messages' times.
        public var timeZone: TimeZone
        /// How the demo world injects a fault, given the open channel and its server.
        public var injectFault: (@Sendable (DemoFault, _ channel: String?, _ server: String?) async -> Void)?
        /// The device's clock.
        public var now: @Sendable () -> Date

        /// A configuration.
        public init(
            mode: ChatState.Mode = .server, email: String = "", password: String = "", loginHints: [String] = [],
            timeZone: TimeZone = .current,
            injectFault: (@Sendable (DemoFault, String?, String?) async -> Void)? = nil,
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.mode = mode
            self.email = email
            self.password = password
            self.loginHints = loginHints
            self.timeZone = timeZone
            self.injectFault = injectFault
            self.now = now
        }
    }

    /// The client.
    public let client: StoatClient
    /// The session's and the chats' model.
    public let model: StoatClientModel
    /// The login screen's model, when the account's store is kept.
    public let signIn: SignInModel?
    /// The state the screens draw.
    public private(set) var state: ChatState

    private let configuration: Configuration
    private var channel: ChannelModel?
    private var channelTask: Task<Void, Never>?
    private var channelLastRead: String?
    private var authorNames: [String: String] = [:]
    private var members: MemberListModel?
    private var membersTask: Task<Void, Never>?
    private var challenge: MFAChallenge?
    private var directSigningIn = false
    private let wakeups: AsyncStream<Wakeup>
    private let wake: AsyncStream<Wakeup>.Continuation
    private var modelsPending = false
    private var timer: Task<Void, Never>?
    /// Builds each frame from the last, drawing again only what changed.
    private var frames = ChatFrameBuilder()

    private enum Wakeup: Sendable {
        case input(ChatEvent)
        case modelsChanged
        case tick
        case inputEnded
    }

    /// A driver for a client.
    ///
    /// - Parameters:
    ///   - client: The client (its `StoatClient/run()` runs beside the driver).
    ///   - model: The client's model (its `StoatClientModel/run()` runs beside the driver).
    ///   - store: The account store, when the client keeps one: the login signs in through it.
    ///   - size: The terminal's size.
    ///   - configuration: The mode, the form's defaults, the demo's faults.
    public init(
        client: StoatClient, model: StoatClientModel, store: AccountStore?, size: TerminalSize,
        configuration: Configuration
    ) {
        self.client = client
        self.model = model
        self.configuration = configuration
        signIn = store.map { SignInModel(client: client, store: $0) }
        (wakeups, wake) = AsyncStream.makeStream(of: Wakeup.self)
        state = ChatState(
            models: ChatModels(session: model.snapshot), size: size, now: configuration.now(),
            timeZone: configuration.timeZone, mode: configuration.mode, email: configuration.email)
        state.login.password = Composer(configuration.password)
        state.loginPassword = configuration.password
        state.loginHints = configuration.loginHints
    }

    /// Runs until the person quits or `input` ends: reads events, reduces them, runs the effects, draws.
    ///
    /// - Parameters:
    ///   - input: The terminal's events (keys, pastes, the mouse, resizes), as LifelineTerminal's `Terminal` reads
    ///     them.
    ///   - draw: Draws a frame (the renderer diffs it against the last).
    public func run(input: AsyncStream<InputEvent>, draw: @MainActor (Frame) -> Void) async {
        let reader = Task { [wake] in
            for await event in input { wake.yield(.input(ChatEvent(event))) }
            wake.yield(.inputEnded)
        }
        defer {
            reader.cancel()
            timer?.cancel()
            channelTask?.cancel()
            membersTask?.cancel()
        }
        for effect in apply(.models(observeModels())) { perform(effect) }
        draw(frame())
        scheduleTick()
        for await wakeup in wakeups {
            var effects: [ChatEffect] = []
            let retired = state.models
            switch wakeup {
            case .input(let event):
                effects += apply(.tick(configuration.now()))
                effects += apply(event)
            case .modelsChanged:
                modelsPending = false
                effects += apply(.tick(configuration.now()))
                effects += apply(.models(observeModels()))
            case .tick:
                effects += apply(.tick(configuration.now()))
            case .inputEnded:
                return
            }
            if effects.contains(.quit) { return }
            for effect in effects { perform(effect) }
            // The models' values the state held before are released after the frame is drawn, not while it is
            // built: a channel's old history (a thousand messages) costs its free after the screen shows the new one.
            withExtendedLifetime(retired) { draw(frame()) }
            scheduleTick()
        }
    }

    /// The frame of the current state, built from the last frame (``ChatFrameBuilder``): the parts that did not
    /// change keep their cells.
    public func frame() -> Frame {
        let cursor = ChatScreen.cursor(state, size: state.size).map { Cursor.at(row: $0.row, column: $0.column) }
        let grid = frames.render(state, size: state.size)
        return Frame(grid: grid, cursor: cursor ?? .hidden, changes: frames.changes)
    }

    @discardableResult
    private func apply(_ event: ChatEvent) -> [ChatEffect] {
        ChatReducer.reduce(&state, event)
    }

    /// Sets one timer for the next moment the screen's text changes by itself, if any.
    private func scheduleTick() {
        timer?.cancel()
        timer = nil
        guard let next = ChatScreen.nextChange(state) else { return }
        let delay = max(0.01, next.timeIntervalSince(configuration.now()))
        timer = Task { [wake] in
            try? await Task.sleep(for: .milliseconds(Int(delay * 1000) + 5))
            if !Task.isCancelled { wake.yield(.tick) }
        }
    }

    // MARK: - The models

    /// Reads the models' values, and asks Observation to say when any value read changes.
    private func observeModels() -> ChatModels {
        withObservationTracking {
            readModels()
        } onChange: { [weak self] in
            // Called before the change, on the thread that makes it (the main actor's): the loop reads after.
            MainActor.assumeIsolated { self?.modelsDidChange() }
        }
    }

    private func modelsDidChange() {
        guard !modelsPending else { return }
        modelsPending = true
        wake.yield(.modelsChanged)
    }

    private func readModels() -> ChatModels {
        let user = model.currentUser
        let chats = model.chats
        var servers: [String: String] = [:]
        for id in Set(chats.compactMap(\.serverID)) { servers[id] = client.server(id)?.name }
        return ChatModels(
            session: model.snapshot, retryDate: model.retryDate, lastFailure: model.lastFailure,
            lastFailureDate: model.lastFailureDate, currentUserID: user?.id,
            currentUserName: user.map { $0.displayName ?? $0.username }, chats: chats, serverNames: servers,
            channel: channel.map(channelView), members: members.map(membersView), signIn: signInView())
    }

    private func channelView(_ channel: ChannelModel) -> ChannelView {
        var messages = channel.messages
        // The user's actions in force show on their messages at once (an edit's text, a reaction).
        let actions = channel.pendingActions
        let targets = Set(actions.compactMap(\.target))
        if !targets.isEmpty {
            for index in messages.indices where targets.contains(messages[index].id) {
                messages[index] = channel.displayed(messages[index])
            }
        }
        for message in messages where authorNames[message.id] == nil {
            authorNames[message.id] = channel.authorName(of: message)
        }
        return ChannelView(
            id: channel.channelID, messages: messages, gaps: channel.gaps, isStale: channel.isStale,
            isLoadingOlder: channel.isLoadingOlder, reachedStart: channel.reachedStart, pending: channel.pending,
            typing: channel.typing.map(channel.name(of:)), slowmodeUntil: channel.slowmodeUntil,
            timeoutUntil: channel.timeoutUntil, lastError: channel.lastError?.message, catchUp: channel.lastCatchUp,
            lastRead: channelLastRead, authorNames: authorNames, actions: actions, draft: channel.draft,
            firstUnread: channel.firstUnread, islandLast: channel.island?.last, isLoadingNewer: channel.isLoadingNewer)
    }

    private func membersView(_ members: MemberListModel) -> MemberListView {
        MemberListView(serverID: members.serverID, rows: members.rows, isStale: members.isStale)
    }

    private func signInView() -> SignInView {
        let server = client.api.server?.description ?? ""
        guard let signIn else {
            return SignInView(
                secondFactor: challenge.map { $0.allowedMethods.map(\.rawValue) }, isSigningIn: directSigningIn,
                server: server)
        }
        return SignInView(
            accounts: signIn.accounts, secondFactor: signIn.secondFactor.map { $0.methods.map(\.rawValue) },
            isSigningIn: signIn.isSigningIn, outcome: signIn.outcome.flatMap(Self.describe), server: server)
    }

    /// What a sign-in's outcome says beyond the session's notice.
    private static func describe(_ outcome: SignInOutcome) -> String? {
        switch outcome {
        case .opened, .created, .secondFactorRequired, .wrongPassword, .verificationFailed: return nil
        case .wrongPasswordUnconfirmed:
            return "The password does not open this device's store, and the server could not be asked."
        case .encryptionFailure:
            return
                "This device's store of the account cannot be read with this password (it is kept; nothing was erased)."
        case .migrationFailure:
            return "This device's store of the account was written by another version (it is kept as it is)."
        case .serverUnreachable: return "The server cannot be reached: try again when it can."
        case .storageFailure(let error): return "The account's store failed: \(error.message)"
        case .otherServer(let server): return "This account belongs to \(server): nothing was sent."
        }
    }

    // MARK: - Effects

    /// A path typed at the attach prompt, with a leading `~` as the user's home.
    static func expandingHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] else {
            return path
        }
        return home + path.dropFirst()
    }

    private func perform(_ effect: ChatEffect) {
        switch effect {
        case .quit: break
        case .signIn(let email, let password):
            if let signIn {
                spawn { await signIn.signIn(email: email, password: password) }
            } else {
                directLogIn { await $0.logIn(email: email, password: password) }
            }
        case .signInStored(let id, let password):
            guard let signIn, let account = signIn.accounts.first(where: { $0.id == id }) else { return }
            spawn { await signIn.signIn(account: account, password: password) }
        case .submitCode(let code):
            if let signIn {
                spawn { await signIn.submit(SecondFactorResponse(method: .totp, code: code)) }
            } else if let challenge {
                self.challenge = nil
                directLogIn { await $0.continueLogIn(challenge, with: .totp(code)) }
            }
        case .submitUsername(let name):
            let client = client
            spawn { try? await client.submitUsername(name) }
        case .cancelOnboarding:
            let session = client.session
            spawn { _ = await session.cancelOnboarding() }
        case .dismissError:
            let model = model
            spawn { await model.dismissError() }
        case .connectNow:
            let model = model
            spawn { await model.reconnectNow() }
        case .logOut:
            let model = model
            spawn { await model.logOut() }
        case .open(let id):
            open(id)
        case .loadOlder(let id):
            guard let channel, channel.channelID == id else { return }
            spawn { await channel.loadOlder() }
        case .ack(let id, let message):
            // The library marks the chat read at once and sends the ack itself, coalesced; without a session there
            // is nothing to mark.
            try? client.ack(channel: id, message: message)
        case .typing(let id):
            let session = client.session
            spawn { await session.beginTyping(channel: id) }
        case .send(let id, let text, let replyTo):
            let client = client
            let quoted = replyTo.flatMap { reply in channel?.messages.first { $0.id == reply } }
            spawn {
                if let quoted {
                    _ = try? await client.reply(to: quoted, with: text)
                } else {
                    _ = try? await client.send(text, to: id)
                }
            }
        case .attach(let id, let text, let path):
            guard let channel, channel.channelID == id else { return }
            let file = OutgoingFile(path: Self.expandingHome(path))
            spawn {
                await channel.send(text, files: [file])
                // A file that cannot be queued (none at that path, unreadable) sends nothing: the text put aside
                // comes back as the draft, which an empty composer takes, so nothing typed is lost.
                if channel.lastError != nil, !text.isEmpty, channel.draft.isEmpty { channel.draft = text }
            }
        case .jumpToFirstUnread(let id):
            guard let channel, channel.channelID == id else { return }
            spawn { await channel.jumpToFirstUnread() }
        case .loadNewer(let id):
            guard let channel, channel.channelID == id else { return }
            spawn { await channel.loadNewer() }
        case .edit(let id, let message, let text):
            guard let channel, channel.channelID == id else { return }
            spawn { await channel.edit(message, to: text) }
        case .delete(let id, let message):
            guard let channel, channel.channelID == id else { return }
            spawn { await channel.delete(message) }
        case .react(let id, let message, let emoji):
            guard let channel, channel.channelID == id else { return }
            spawn { await channel.react(to: message, with: emoji) }
        case .unreact(let id, let message, let emoji):
            guard let channel, channel.channelID == id else { return }
            spawn { await channel.unreact(to: message, with: emoji) }
        case .keepDraft(let id, let text):
            if let channel, channel.channelID == id {
                channel.draft = text
            } else {
                client.keepDraft(text, in: id)
            }
        case .resend(let nonce):
            try? client.resend(nonce)
        case .discard(let nonce):
            try? client.discard(nonce)
        case .showMembers(let server):
            showMembers(server)
        case .fault(let fault):
            guard let inject = configuration.injectFault else { return }
            let channel = state.openChannel
            let server = state.openChat?.serverID
            spawn { await inject(fault, channel, server) }
        }
    }

    private func open(_ id: String) {
        channelTask?.cancel()
        authorNames = [:]
        channelLastRead = client.lastRead(in: id)
        let channel = model.channel(id)
        self.channel = channel
        channelTask = Task { await channel.run() }
        modelsDidChange()
    }

    private func showMembers(_ server: String?) {
        membersTask?.cancel()
        members = nil
        if let server {
            let members = model.members(of: server)
            self.members = members
            membersTask = Task { await members.run() }
        }
        modelsDidChange()
    }

    /// A login without a store: the outcome's second factor is kept for the code, its refusal is READY's notice.
    private func directLogIn(_ body: @escaping @Sendable (StoatClient) async -> StoatClient.LoginOutcome) {
        let client = client
        directSigningIn = true
        modelsDidChange()
        spawn { [weak self] in
            let outcome = await body(client)
            guard let self else { return }
            self.directSigningIn = false
            if case .needsMFA(let challenge) = outcome { self.challenge = challenge }
            self.modelsDidChange()
        }
    }

    /// Runs an effect's work on the main actor; the models it changes wake the loop.
    private func spawn(_ body: @escaping @MainActor () async -> Void) {
        Task { await body() }
    }
}
