import ArgumentParser
import Foundation
import Lifeline
import LifelineCLIOutput
import LifelineCore
import LifelineStoat
import LifelineStoatStore
import LifelineStore
import Synchronization
import UnixSignals

/// `lifeline connect`: a session against a real server, to watch and to script.
struct Connect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keep a session alive against a Stoat server (or lifeline serve), and print its timeline.",
        discussion: """
            Log in with a session token (LOGIN_CACHED), an email and password (LOGIN_UNCACHED), or through an \
            encrypted account store (--store). Secrets are best given through the environment \
            (LIFELINE_PASSWORD, LIFELINE_TOKEN, LIFELINE_TOTP) or standard input (--password-stdin, \
            --token-stdin: the first line), not as options that ps and shell history keep. A store's account \
            belongs to one server: the same email on another --api is another account, a session token goes only \
            to the server that issued it, and --account LABEL@HOST picks the account of one server when a label \
            is on several. Commands on standard \
            input, one per line: logout, retry, offline, online, subscribe ID, unsubscribe ID, typing CHANNEL, \
            send CHANNEL TEXT, discard NONCE, resend NONCE, history CHANNEL, open CHANNEL, \
            ack CHANNEL [ID] (acknowledges ID, or the newest message the cache knows; answered at once), \
            around CHANNEL ID and first-unread CHANNEL (the page jumped to, as a history line whose gaps bound it), \
            older CHANNEL (the page before the oldest cached message, the newest gap first), draft CHANNEL TEXT (the \
            channel's draft, in the store before the command line is printed; draft CHANNEL alone clears it; each \
            stored draft is printed at start), push ENDPOINT P256DH AUTH (subscribes the device to Web Push once \
            CONNECTED, again after each new login), username NAME, \
            cancel, dismiss, quit. send goes through the outbox: it is queued (kept in the store with --store, \
            so it is sent on the next run after quit, a signal or a crash), posted whenever the API may answer \
            (not offline), looked for rather than posted again when an answer is lost, and \
            printed at every change of its state (queued, sending, sent, failed); discard drops a queued or \
            failed message, resend posts a failed one again with a new key. A socket that answers Pings but does \
            not deliver the user's own message within --delivery-deadline is dropped (deliveryStalled) and \
            reconnected. After every reconnect the client catches up over REST and prints what it found \
            (message lines with caught_up, message_update, message_delete, catch_up). The end of input does not \
            end the session; quit, SIGINT and SIGTERM do (exit 0). A login refused in READY prints why and exits \
            1. With --json, standard output carries one JSON object per line and nothing else (format: \
            Sources/LifelineCLI/LifelineCLI.docc/ConnectCommand.md).
            """
    )

    enum NetworkSource: String, ExpressibleByArgument, CaseIterable {
        case system, manual
    }

    enum FrameFormat: String, ExpressibleByArgument, CaseIterable {
        case json, msgpack
    }

    @Option(help: "The API's base URL, e.g. https://api.stoat.chat or lifeline serve's api.")
    var api: String

    @Option(help: "A session token, logged in as cached (LOGIN_CACHED); -TOKEN needs --token=. Prefer LIFELINE_TOKEN.")
    var token: String?

    @Flag(help: "Read the session token from the first line of standard input.")
    var tokenStdin = false

    @Option(help: "The token's user id, for tailoring a permanent error (taken from Ready when omitted).")
    var userId: String?

    @Option(help: "Log in with this email (LOGIN_UNCACHED), or find the store's account by it.")
    var email: String?

    @Option(help: "The password. Prefer LIFELINE_PASSWORD or --password-stdin.")
    var password: String?

    @Flag(help: "Read the password from the first line of standard input.")
    var passwordStdin = false

    @Option(help: "A TOTP code to answer an MFA challenge (or LIFELINE_TOTP).")
    var totp: String?

    @Option(help: "Answer ONBOARDING with this username.")
    var username: String?

    @Option(help: "Subscribe to this server (repeatable); restored after every reconnect.")
    var subscribe: [String] = []

    @Option(
        help:
            "Where the device's network state comes from: system (the OS monitor) or manual (standard input's offline/online)."
    )
    var network: NetworkSource = .system

    @Option(help: "The health endpoint to poll after 3 failures.")
    var health: String?

    @Option(help: "The events socket's frames: json (text, the default) or msgpack (MessagePack, binary).")
    var format: FrameFormat = .json

    @Option(help: "Seconds between heartbeat Pings.") var heartbeatInterval: Double = 30
    @Option(help: "Seconds to wait for a Pong.") var pongTimeout: Double = 10
    @Option(help: "Seconds to wait for the first message of a connection.") var connectTimeout: Double = 10
    @Option(help: "Seconds to wait for the answer to a REST request (the login's too).") var requestTimeout: Double = 30
    @Option(help: "The retry delay's unit in seconds: (2^x − 1) × unit ± 20 %.") var retryUnit: Double = 1
    @Option(help: "The largest retry delay before jitter, in seconds.") var retryCeiling: Double = 300
    @Option(help: "Seconds the socket has to deliver the user's own sent message (± 20 %) before it counts as deaf.")
    var deliveryDeadline: Double = 15
    /// Seconds from CONNECTED to the catch-up's second pass (``CatchUpPolicy/settleDelay``, 33 s); zero makes
    /// one pass. For tests only: hidden from `--help`, absent from the README's contract, and not to be used by
    /// programs that read this command. Tests never wait on the wall clock for a duration, and the command runs
    /// in a process of its own on the wall clock, where no test clock reaches; so a test of the `catch_up` and
    /// `chats` lines of both passes shortens the delay here instead of waiting half a minute per connection
    /// (it moves the reference server's clock past stoatchat's debounce to match). A hidden option rather than an
    /// environment variable: it is parsed and validated with the others, and seen in the test's arguments.
    @Option(help: ArgumentHelp(visibility: .private)) var catchUpSettle: Double = 33

    @Option(
        help: """
            An encrypted account store in this directory: created on first use with --email and the password, then \
            opened with the password alone (also offline) to show the cached chats and start from the cached session.
            """)
    var store: String?

    @Option(
        help: """
            With --store: the account to open, by its label (the username), when the store holds several; \
            LABEL@HOST picks the one of that server (HOST as listed: host, host:port or the API URL).
            """)
    var account: String?

    @Flag(
        help:
            "Erase this account's store (with --store and --email or --account) and exit. The only way Lifeline erases it."
    )
    var eraseStore = false

    @Flag(help: "One JSON object per line on standard output.")
    var json = false

    @Option(help: "A PEM file of certificate authorities to trust besides the system's (a self-hosted instance's own).")
    var caFile: String?

    /// The environment, read once (tests run the command as a process with their own).
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    func validate() throws {
        guard URL(string: api)?.scheme != nil, ServerIdentity(api) != nil else {
            throw ValidationError("--api must be an http or https URL with a host, got \(api).")
        }
        if passwordStdin && tokenStdin {
            throw ValidationError("Standard input's first line is one secret: --password-stdin or --token-stdin.")
        }
        if eraseStore {
            guard store != nil, email != nil || account != nil else {
                throw ValidationError("--erase-store needs --store and --email or --account.")
            }
            return
        }
        let hasPassword = password != nil || passwordStdin || Self.environment["LIFELINE_PASSWORD"] != nil
        let hasToken = token != nil || tokenStdin || Self.environment["LIFELINE_TOKEN"] != nil
        if store != nil {
            guard hasPassword else {
                throw ValidationError("--store needs the password (LIFELINE_PASSWORD, --password-stdin or --password).")
            }
        } else if account != nil {
            throw ValidationError("--account picks an account of a store: it needs --store.")
        } else {
            switch (hasToken, email != nil, hasPassword) {
            case (true, false, _): break
            case (false, true, true): break
            default:
                throw ValidationError(
                    "Give a token (LIFELINE_TOKEN, --token-stdin or --token), or --email with the password.")
            }
        }
        for (name, value) in [
            ("heartbeat-interval", heartbeatInterval), ("pong-timeout", pongTimeout),
            ("connect-timeout", connectTimeout), ("retry-unit", retryUnit), ("delivery-deadline", deliveryDeadline),
            ("request-timeout", requestTimeout),
        ] where !(value > 0 && value.isFinite) {
            throw ValidationError("--\(name) must be a positive number of seconds, got \(value).")
        }
        if !retryCeiling.isFinite { throw ValidationError("--retry-ceiling must be a number of seconds.") }
        guard catchUpSettle >= 0, catchUpSettle <= 3600 else {
            throw ValidationError("--catch-up-settle must be 0–3600 seconds, got \(catchUpSettle).")
        }
        do {
            _ = try RetryPolicy(unit: .seconds(retryUnit), ceiling: .seconds(retryCeiling))
        } catch {
            throw ValidationError("--retry-unit and --retry-ceiling: \(error.message)")
        }
        if let health, URL(string: health)?.scheme == nil { throw ValidationError("--health must be a URL.") }
        if let caFile { _ = try CertificateAuthorities.load(caFile) }
    }

    func run() async throws {
        // The first line of standard input is a secret when asked: taken apart from the commands.
        let input = StandardInputLines(firstLineIsSecret: passwordStdin || tokenStdin)
        let firstLineSecret = await input.secret()
        let secrets = Secrets(
            password: password ?? (passwordStdin ? firstLineSecret : nil) ?? Self.environment["LIFELINE_PASSWORD"],
            token: token ?? (tokenStdin ? firstLineSecret : nil) ?? Self.environment["LIFELINE_TOKEN"],
            totp: totp ?? Self.environment["LIFELINE_TOTP"])
        if eraseStore, let store {
            try erase(store: store)
            return
        }
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let apiURL = URL(string: api)!
        let monitor: any NetworkMonitor =
            network == .manual ? ManualNetworkMonitor(.online) : SystemNetworkMonitor.make()
        var configuration = StoatClient.Configuration(
            connection: StoatConnectionFactory.Configuration(
                heartbeatInterval: .seconds(heartbeatInterval), pongTimeout: .seconds(pongTimeout),
                connectTimeout: .seconds(connectTimeout), format: format == .msgpack ? .messagePack : .json),
            session: Session.Configuration(
                retryPolicy: try RetryPolicy(unit: .seconds(retryUnit), ceiling: .seconds(retryCeiling)),
                subscriptionRenewal: .seconds(600),
                deliveryWatch: try DeliveryWatchPolicy(deadline: .seconds(deliveryDeadline))),
            healthURL: health.flatMap(URL.init(string:)), friendlyName: "lifeline connect")
        configuration.catchUp.settleDelay = .seconds(catchUpSettle)
        configuration.requestTimeout = .seconds(requestTimeout)
        // The system's network comes with the system's wakes: a socket that died in a suspend is left at once.
        if network != .manual { configuration.session.wakeMonitor = SystemWakeMonitor.make() }
        try CertificateAuthorities.trust(caFile, in: &configuration)
        let client = StoatClient(apiURL: apiURL, configuration: configuration, network: monitor)
        let timeline = Timeline(json: json)
        let printer = AccountPrinter(client: client, timeline: timeline)
        // Subscribed now, so a deadline that Ready already carries is printed too.
        let restrictionEvents = client.restrictionEvents
        // Subscribed now, so the entries the store gives back at sign-in are printed too.
        let outboxEvents = client.outboxEvents
        // Subscribed now, so the first CONNECTED's catch-up is printed too.
        let feed = client.messageFeed
        let username = username
        let firstScreenFromStore = store != nil

        // The client runs until told to stop; the timeline and the message printer follow it to its end, so
        // the last lines (a refused login's notice) are printed before the command exits.
        let (stop, stopping) = AsyncStream.makeStream(of: Void.self)
        // The timeline starts once the sign-in's outcome and first screen are printed, so they come first;
        // the snapshots meanwhile carry every transition.
        let (signedIn, signInPrinted) = AsyncStream.makeStream(of: Void.self)
        let loggedIn = await withDiscardingTaskGroup(returning: Bool.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { runner in
                    runner.addTask { await client.run() }
                    runner.addTask { for await _ in stop {} }
                    await runner.next()
                    runner.cancelAll()
                }
            }
            let (following, followingStarted) = AsyncStream.makeStream(of: Void.self)
            group.addTask {
                // Observe from the start (READY), then wait for the sign-in's lines.
                var states = client.session.states.makeAsyncIterator()
                followingStarted.finish()
                for await _ in signedIn {}
                var shownFirstScreen = firstScreenFromStore
                while let snapshot = await states.next() {
                    timeline.show(snapshot)
                    if snapshot.transitions.last?.to == .onboarding, let username {
                        try? await client.session.submitUsername(username)
                    }
                    if !shownFirstScreen, snapshot.transitions.contains(where: { $0.to == .connected }) {
                        shownFirstScreen = true
                        printer.firstScreen()
                    }
                }
            }
            group.addTask { await printer.printMessages(feed) }
            group.addTask { await printer.printRestrictions(restrictionEvents) }
            group.addTask { await printer.printOutbox(outboxEvents) }
            group.addTask { await printer.printPush() }
            group.addTask {
                // Unread states that change are printed once the first screen is out (a store's, or CONNECTED's).
                for await _ in signedIn {}
                await printer.printUnreadChanges()
            }
            defer { stopping.finish() }
            for await _ in following {}
            for server in subscribe { await client.session.subscribe(server: server) }
            let accepted = await logIn(client, secrets: secrets, timeline: timeline, printer: printer)
            signInPrinted.finish()
            guard accepted else { return false }
            printer.drafts()
            await withTaskGroup(of: Void.self) { commandsOrSignal in
                commandsOrSignal.addTask {
                    for await line in input.lines {
                        let result = await Self.perform(
                            line, client: client, monitor: monitor, timeline: timeline, printer: printer)
                        if result == .quit { return }
                    }
                    // End of input does not end the session: wait for a signal (this task's cancellation).
                    await untilCancelled()
                }
                commandsOrSignal.addTask {
                    for await _ in signals { return }
                }
                await commandsOrSignal.next()
                commandsOrSignal.cancelAll()
            }
            return true
        }
        if !loggedIn { throw ExitCode(1) }
    }

    /// The secrets, wherever they came from; never printed.
    struct Secrets: Sendable {
        var password: String?
        var token: String?
        var totp: String?
    }

    /// Logs in as the options say; `false` when the login was refused in READY.
    private func logIn(
        _ client: StoatClient, secrets: Secrets, timeline: Timeline, printer: AccountPrinter
    ) async
        -> Bool
    {
        if let store, let password = secrets.password {
            return await signIn(store: store, password: password, totp: secrets.totp, client: client, printer: printer)
        }
        if let token = secrets.token {
            // Without --user-id the client learns the viewer from `Ready` (the user whose relationship is `User`):
            // no `GET /users/@me` first, whose rate limit could hold the session back.
            return await client.resume(SessionCredentials(token: token, userID: userId))
        }
        guard let email, let password = secrets.password else { return false }
        var outcome = await client.logIn(email: email, password: password)
        if case .needsMFA(let challenge) = outcome {
            guard let totp = secrets.totp else {
                let failure = LoginFailure(
                    code: .secondFactorMissing, message: "The account needs an MFA code: give LIFELINE_TOTP or --totp.")
                await client.session.reportLoginFailure(failure)
                return false
            }
            outcome = await client.continueLogIn(challenge, with: .totp(totp))
        }
        switch outcome {
        case .connecting: return true
        case .needsMFA, .refused: return false
        }
    }

    /// The sign-in flow with the encrypted store: the first screen from the store before any network, the
    /// session from its cache (LOGIN_CACHED, so an unreachable server only delays the connection) or from
    /// the password's verification (LOGIN_UNCACHED), a second factor from --totp.
    private func signIn(
        store directory: String, password: String, totp: String?, client: StoatClient, printer: AccountPrinter
    ) async -> Bool {
        let store = AccountStore(directory: URL(fileURLWithPath: directory))
        var outcome: SignInOutcome
        do {
            switch try chooseAccount(in: store) {
            case .email(let email):
                outcome = await client.signIn(to: store, email: email, password: password)
            case .account(let id):
                outcome = await client.signIn(to: store, account: id, password: password, email: email)
            }
        } catch {
            let failure = LoginFailure(code: .noSuchAccount, message: "\(error)")
            await client.session.reportLoginFailure(failure)
            return false
        }
        if case .secondFactorRequired(let step) = outcome {
            printer.signIn(outcome)
            guard let totp else {
                let failure = LoginFailure(
                    code: .secondFactorMissing, message: "The account needs an MFA code: give LIFELINE_TOTP or --totp.")
                await client.session.reportLoginFailure(failure)
                return false
            }
            outcome = await client.continueSignIn(step, with: SecondFactorResponse(method: .totp, code: totp))
        }
        printer.signIn(outcome)
        if outcome.database != nil { printer.firstScreen() }
        return outcome.session != nil
    }

    /// Which account of the store to open.
    enum AccountChoice {
        case email(String)
        case account(StoredAccount.ID)
    }

    /// The account the options name: by label (`--account LABEL` or `LABEL@HOST`), by email, or the store's
    /// only one. The API's server is the one an account not bound to a server yet would be bound to.
    private func chooseAccount(in store: AccountStore) throws -> AccountChoice {
        let accounts = (try? store.accounts()) ?? []
        if let name = account {
            return .account(try Self.account(named: name, in: accounts, api: ServerIdentity(api)).id)
        }
        if let email { return .email(email) }
        return .account(try Self.onlyAccount(in: accounts, api: ServerIdentity(api)).id)
    }

    /// The account to open when neither `--account` nor `--email` names one: the store's only account, or
    /// the only one of `api`'s server when the store holds accounts of several servers.
    static func onlyAccount(in accounts: [StoredAccount], api: ServerIdentity?) throws -> StoredAccount {
        if accounts.count == 1, let only = accounts.first { return only }
        let onServer = accounts.filter { $0.server != nil && $0.server == api }
        if onServer.count == 1, let only = onServer.first { return only }
        throw ValidationError(
            accounts.isEmpty
                ? "The store has no account yet: give --email to create it."
                : "The store holds \(accounts.count) accounts: pick one with --account LABEL "
                    + "(\(choices(accounts))).")
    }

    /// The account `--account` names: `LABEL`, when one account has that label, or `LABEL@HOST`, the account
    /// of that label on the server HOST names (`ServerIdentity.isNamed(by:)`). When no account of that server
    /// has the label, one not bound to a server yet counts as `api`'s, since signing in binds it there. A label
    /// that matches accounts on several servers is refused with the choices.
    static func account(
        named name: String, in accounts: [StoredAccount], api: ServerIdentity?
    ) throws -> StoredAccount {
        var matching = accounts.filter { $0.label == name }
        if matching.isEmpty, let at = name.lastIndex(of: "@") {
            let label = String(name[..<at])
            let host = String(name[name.index(after: at)...])
            let labelled = accounts.filter { $0.label == label }
            matching = labelled.filter { $0.server?.isNamed(by: host) ?? false }
            if matching.isEmpty, api?.isNamed(by: host) == true {
                matching = labelled.filter { $0.server == nil }
            }
        }
        guard matching.count == 1, let chosen = matching.first else {
            if matching.isEmpty {
                throw ValidationError(
                    "The store has no account \(name) (it has: \(accounts.isEmpty ? "none" : choices(accounts))).")
            }
            throw ValidationError(
                "Several accounts are labelled \(name): pick one with --account LABEL@HOST (\(choices(matching))).")
        }
        return chosen
    }

    /// The accounts as `--account` names them: `LABEL@HOST` for an account of a server (the full server when
    /// two listed servers share a host and port), `LABEL (no server yet)` for a file not bound to one.
    static func choices(_ accounts: [StoredAccount]) -> String {
        let servers = Set(accounts.compactMap(\.server))
        let sharedAuthorities = Dictionary(grouping: servers, by: \.authority).filter { $0.value.count > 1 }
        return accounts.map { account -> String in
            let label = account.label ?? account.id
            guard let server = account.server else { return "\(label) (no server yet)" }
            let host = sharedAuthorities[server.authority] == nil ? server.authority : server.description
            return "\(label)@\(host)"
        }
        .sorted()
        .joined(separator: ", ")
    }

    private func erase(store directory: String) throws {
        let store = AccountStore(directory: URL(fileURLWithPath: directory))
        let server = ServerIdentity(api)
        let target: String
        let choice: AccountChoice
        do {
            choice = try chooseAccount(in: store)
        } catch let error as ValidationError {
            // It lists the store's labels: usernames the server chose, shown on a terminal.
            throw ValidationError(terminalSafe(error.message))
        }
        switch choice {
        case .email(let email):
            // The account of that email on --api's server; the same email on another server is another account.
            guard let server else { throw ValidationError("--api must be an http or https URL with a host.") }
            guard store.hasDatabase(email: email, server: server) else {
                let accounts = (try? store.accounts()) ?? []
                throw ValidationError(
                    "The store has no account of that email on \(server) (it has: "
                        + "\(accounts.isEmpty ? "none" : Self.choices(accounts))); nothing was erased.")
            }
            try store.erase(email: email, server: server)
            target = "the account of that email on \(server)"
        case .account(let id):
            try store.erase(account: id)
            target = "account \(account ?? id)"
        }
        var line: [String: JSONLine.Value] = ["type": .string("signin"), "outcome": .string("erased")]
        if let server { line["server"] = .string(server.description) }
        emit(json ? JSONLine.encode(line) : "Erased the store of \(terminalSafe(target)).")
    }

    enum CommandResult { case done, quit }

    /// Performs one line of standard input.
    static func perform(
        _ line: String, client: StoatClient, monitor: any NetworkMonitor, timeline: Timeline, printer: AccountPrinter
    ) async -> CommandResult {
        let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        guard let command = words.first else { return .done }
        let argument = words.dropFirst().first
        let session = client.session
        var accepted = true
        var reason: String?
        switch (command, argument) {
        case ("quit", _): return .quit
        case ("logout", _): accepted = await session.logOut()
        case ("retry", _): accepted = await session.reconnectNow()
        case ("cancel", _): accepted = await session.cancelOnboarding()
        case ("dismiss", _): accepted = await session.dismissError()
        case ("offline", _), ("online", _):
            if let manual = monitor as? ManualNetworkMonitor {
                manual.set(command == "online" ? .online : .offline)
            } else {
                accepted = false
                reason = "the network comes from the system (--network manual takes it from here)"
            }
        case ("subscribe", let id?): await session.subscribe(server: id)
        case ("unsubscribe", let id?): await session.unsubscribe(server: id)
        case ("typing", let id?): await session.beginTyping(channel: id)
        case ("username", let name?):
            do { try await session.submitUsername(name) } catch {
                accepted = false
                reason = error.message
            }
        case ("open", let channel?):
            client.open(channel)
        case ("history", let channel?):
            printer.history(await client.history(of: channel))
        case ("around", let channel?), ("first-unread", let channel?):
            // `around CHANNEL ID`, `first-unread CHANNEL`: a `history` line of the page jumped to, its `gaps` the
            // holes on either side of it, its `target` the message jumped to (or the first unread; null when
            // nothing is unread).
            guard command == "first-unread" || words.count == 3 else {
                timeline.command(line, accepted: false, reason: "around needs a channel and a message id")
                return .done
            }
            do {
                let page =
                    command == "around"
                    ? try await client.history(of: channel, around: words[2])
                    : try await client.historyAtFirstUnread(of: channel)
                printer.jumped(page)
            } catch {
                accepted = false
                reason = "\(error.cause.map { "\($0)" } ?? error.message)"
            }
        case ("ack", let channel?):
            // `ack CHANNEL [ID]`: the newest message the cache knows when no id is given. Marked read at once;
            // the request follows (debounced per channel), so the answer does not wait for the server.
            guard let message = words.count == 3 ? words[2] : client.newestMessage(in: channel) else {
                accepted = false
                reason = "the cache knows no message in \(channel)"
                break
            }
            do {
                try client.ack(channel: channel, message: message)
                printer.firstScreen()
            } catch {
                accepted = false
                reason = error.message
            }
        case ("older", let channel?):
            do {
                printer.history(try await printer.older(channel))
            } catch {
                accepted = false
                reason = "\(error.cause.map { "\($0)" } ?? error.message)"
            }
        case ("send", let channel?):
            guard words.count == 3 else {
                timeline.command(line, accepted: false, reason: "send needs a channel and a text")
                return .done
            }
            do {
                // Returns once queued (and kept in the store): the outbox lines follow the delivery.
                _ = try await client.send(OutgoingMessage(content: words[2]), to: channel)
            } catch {
                accepted = false
                reason = "\(error.cause.map { "\($0)" } ?? error.message)"
            }
        case ("attach", let channel?):
            // `attach CHANNEL PATH [TEXT]`: the longest prefix of the rest that names an existing file is the path.
            guard words.count == 3, let (path, text) = attachment(words[2]) else {
                timeline.command(line, accepted: false, reason: "attach needs a channel and a path")
                return .done
            }
            do {
                // Returns once queued with the file's hash (and kept in the store): the outbox lines follow the
                // upload's progress and the delivery.
                _ = try await client.send(
                    OutgoingMessage(content: text), files: [OutgoingFile(path: path)], to: channel)
            } catch {
                accepted = false
                reason = error.message
            }
        case ("edit", let id?), ("delete", let id?), ("react", let id?), ("unreact", let id?):
            // `edit ID TEXT`, `delete ID`, `react ID EMOJI`, `unreact ID EMOJI`: the channel is the message's.
            (accepted, reason) = await act(command, on: id, words: words, client: client)
        case ("draft", let channel?):
            // Stored before the command line is printed: a script that reads the line may kill the process.
            do { try await client.setDraft(words.count == 3 ? words[2] : "", in: channel) } catch {
                accepted = false
                reason = "\(error.cause.map { "\($0)" } ?? error.message)"
            }
        case ("push", let endpoint?):
            let keys = words.count == 3 ? words[2].split(separator: " ").map(String.init) : []
            guard keys.count == 2 else {
                timeline.command(
                    line, accepted: false, reason: "push needs an endpoint, a p256dh key and an auth secret")
                return .done
            }
            await client.subscribePush(WebPushSubscription(endpoint: endpoint, p256dh: keys[0], auth: keys[1]))
        case ("discard", let nonce?):
            do { try client.discard(nonce) } catch {
                accepted = false
                reason = error.message
            }
        case ("resend", let nonce?):
            do { try client.resend(nonce) } catch {
                accepted = false
                reason = error.message
            }
        default:
            timeline.command(line, accepted: false, reason: "unknown command")
            return .done
        }
        if !accepted, reason == nil { reason = "not accepted in \(session.snapshot.state.rawValue)" }
        timeline.command(line, accepted: accepted, reason: reason)
        return .done
    }

    /// `attach`'s path and text from the rest of its line: the longest prefix that names an existing file (so a
    /// path may hold spaces), the text after it (`nil` when none); without such a prefix, the first word is
    /// the path (and the send says it cannot be read).
    static func attachment(_ rest: String) -> (path: String, text: String?)? {
        guard !rest.isEmpty else { return nil }
        var ends = rest.indices.filter { rest[$0] == " " }
        ends.append(rest.endIndex)
        for end in ends.reversed() {
            let candidate = String(rest[..<end])
            var isDirectory: ObjCBool = false
            guard !candidate.isEmpty, FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { continue }
            let text = end == rest.endIndex ? "" : String(rest[rest.index(after: end)...])
            return (candidate, text.isEmpty ? nil : text)
        }
        let parts = rest.split(separator: " ", maxSplits: 1).map(String.init)
        guard let path = parts.first else { return nil }
        return (path, parts.count == 2 ? parts[1] : nil)
    }

    /// Queues an action on a message the client knows through the outbox; returns whether it was queued, and
    /// why not.
    static func act(
        _ command: String, on id: String, words: [String], client: StoatClient
    ) async -> (Bool, String?) {
        let rest = words.count == 3 ? words[2] : nil
        switch command {
        case "edit" where rest == nil: return (false, "edit needs a message and a text")
        case "react" where rest == nil, "unreact" where rest == nil:
            return (false, "\(command) needs a message and an emoji")
        case "delete" where rest != nil: return (false, "delete takes a message only")
        default: break
        }
        guard let channel = client.channel(ofMessage: id) else {
            return (false, "the client knows no message \(id)")
        }
        do {
            // Returns once queued (and kept in the store): the outbox lines follow it.
            switch command {
            case "edit": _ = try await client.edit(id, in: channel, to: rest ?? "")
            case "delete": _ = try await client.delete(id, in: channel)
            case "react": _ = try await client.react(to: id, in: channel, with: rest ?? "")
            default: _ = try await client.unreact(to: id, in: channel, with: rest ?? "")
            }
            return (true, nil)
        } catch {
            return (false, "\(error.cause.map { "\($0)" } ?? error.message)")
        }
    }
}

/// Prints the account's data beside the session's timeline: the sign-in's outcome, the first screen, every
/// message received, a channel's history.
///
/// JSON lines (keys sorted):
/// - `{"type":"signin","outcome":…,"server":…,"session":…,"can_erase":true,"methods":[…]}` (`server`: the
///   normalised API server of the sign-in; `account_server`, for `otherServer`, the account's);
/// - `{"type":"chats","recent":[{"id":…,"name":…,"last_message":TEXT_OR_NULL,"unread":BOOL,"mentions":N},…]}`:
///   the 10 most recently active chats, from the store before any network (or from `Ready` without a store),
///   again after each reconnect's catch-up, after an ack, and whenever a chat's unread state changes;
/// - `{"type":"message","channel":ID,"id":ID,"author":ID,"content":TEXT}` for every message received, with
///   `"caught_up":true` for one the catch-up after a reconnect found;
/// - `{"type":"message_update","channel":ID,"id":ID,"content":TEXT_OR_NULL}` and
///   `{"type":"message_delete","channel":ID,"id":ID}`, live or found by the re-verification after a reconnect;
/// - `{"type":"catch_up","channels":N,"messages":N,"complete":BOOL,"gaps":N}` after each pass of a CONNECTED's
///   catch-up (right after CONNECTED, and again once stoatchat's lagging `last_message_id` has settled, 33 s on),
///   each followed by the `chats` line; `complete` is true only on the last;
/// - `{"type":"history","channel":ID,"stale":BOOL,"messages":[{"id":…,"author":…,"content":…},…],"gaps":[{"after":
///   ID,"before":ID}]}`, oldest first; for `around CHANNEL ID` and `first-unread CHANNEL` the page jumped to, with
///   `"target":ID_OR_NULL` (the message jumped to, or the first unread; null when nothing is unread) and as `gaps`
///   the holes that bound it: between it and the older, and the newer, messages the client holds;
/// - `{"type":"timeout","server":ID,"until":ISO8601}` when the server times the user out in a server (or moves
///   the timeout), and `{"type":"timeout_ended","server":ID}` when the server says it is over;
/// - `{"type":"slowmode","channel":ID,"retry_after":S}` when a channel's slowmode holds the user back, and
///   `{"type":"slowmode_ended","channel":ID}` when the server says it is over;
/// - `{"type":"outbox","kind":"send"|"edit"|"delete"|"react"|"unreact","channel":ID,"nonce":N,"state":"queued"|
///   "sending"|"sent"|"failed","id":ID,"reason":CODE,"may_have_been_sent":true,"retry_after":S,"progress":{"sent":
///   BYTES,"total":BYTES}}` at every change of an outbox entry's state — a sent message (`send CHANNEL TEXT`,
///   `attach CHANNEL PATH [TEXT]`), or an action on a message (`edit ID TEXT`, `delete ID`, `react ID EMOJI`,
///   `unreact ID EMOJI`) — (`id` once sent: the message's, or the acted-on message's for an action, `sent` meaning
///   applied or found already applied; `reason` once failed — `FileTooLarge` for a file over the server's limit,
///   `fileChanged` for one changed since it was queued —, `may_have_been_sent` when the server may have it after
///   all, `retry_after` while a slowmode is waited out, `progress` while a send's file uploads: the bytes of its
///   files sent of all of them), and for each entry the store gives back at sign-in;
///   `{"type":"warning","text":…}` for a stored entry that cannot be read;
/// - `{"type":"draft","channel":ID,"text":TEXT}` for each draft the store holds, once signed in;
/// - `{"type":"push","state":"pending"|"subscribed"|"failed"|"off","reason":CODE}` at every change of the Web
///   Push subscription (`reason` once failed).
struct AccountPrinter: Sendable {
    let client: StoatClient
    let timeline: Timeline
    /// What the last `chats` line said of each chat's unread state, and how far `older` paged back per channel.
    private let state = Locked(PrinterState())

    /// A value behind a lock, shared by the printer's copies.
    private final class Locked<Value: Sendable>: Sendable {
        private let mutex: Mutex<Value>
        init(_ value: sending Value) { mutex = Mutex(value) }
        func withLock<T>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
    }

    private struct PrinterState: Sendable {
        var unread: [String: UnreadMark] = [:]
        var scrolledTo: [String: String] = [:]
    }

    private struct UnreadMark: Equatable {
        var unread: Bool
        var mentions: Int
    }

    init(client: StoatClient, timeline: Timeline) {
        self.client = client
        self.timeline = timeline
    }

    func signIn(_ outcome: SignInOutcome) {
        var line: [String: JSONLine.Value] = ["type": .string("signin"), "outcome": .string(outcome.code.rawValue)]
        var human = "sign-in: \(outcome.code)"
        // The server the sign-in went to: the account opened or created is that server's.
        if let server = client.api.server {
            line["server"] = .string(server.description)
            human += " on \(server)"
        }
        if case .otherServer(let accountServer) = outcome {
            line["account_server"] = .string(accountServer.description)
            human += " — the account belongs to \(terminalSafe(accountServer.description)); nothing was sent"
        }
        if case .opened(_, let session) = outcome {
            line["session"] = .string(session.name)
            human += " (session \(session.name))"
        }
        if case .secondFactorRequired(let step) = outcome {
            line["methods"] = .strings(step.methods.map(\.rawValue))
        }
        if outcome.eraseOption != nil {
            line["can_erase"] = .bool(true)  // offered, never done: --erase-store
            human += " — the store can be erased with --erase-store"
        }
        timeline.record(line, human: human)
    }

    func firstScreen() {
        let chats = client.chats
        state.withLock { $0.unread = Self.marks(chats) }
        let recent = chats.prefix(10)
        let items: [JSONLine.Value] = recent.map { chat in
            .object([
                "id": .string(chat.id), "name": .string(chat.name),
                "last_message": .optional(chat.lastMessage?.content), "unread": .bool(chat.isUnread),
                "mentions": .integer(chat.mentionCount),
            ])
        }
        let human =
            "first screen: \(recent.count) chats"
            + recent.map { chat in
                let badge = chat.mentionCount > 0 ? " (\(chat.mentionCount))" : (chat.isUnread ? " •" : "")
                return "\n  \(terminalSafe(chat.name))\(badge)"
                    + (chat.lastMessage?.content.map { ": \(terminalSafe($0))" } ?? "")
            }.joined()
        timeline.record(["type": .string("chats"), "recent": .array(items)], human: human)
    }

    private static func marks(_ chats: [Chat]) -> [String: UnreadMark] {
        Dictionary(
            uniqueKeysWithValues: chats.map { ($0.id, UnreadMark(unread: $0.isUnread, mentions: $0.mentionCount)) })
    }

    /// Prints the chats whenever a chat's unread state changes (a new message, an ack here or on another
    /// device), until the client stops.
    func printUnreadChanges() async {
        for await chats in client.chatUpdates {
            let marks = Self.marks(chats)
            let changed = state.withLock { state in
                // Chats that come and go are not unread changes; a chat's flag or count that moves is.
                let moved = marks.contains { id, mark in state.unread[id].map { $0 != mark } ?? false }
                state.unread = marks
                return moved
            }
            if changed { firstScreen() }
        }
    }

    /// Prints a reconnect's catch-up, then the chats as it left them.
    func catchUp(_ report: CatchUpReport) {
        timeline.record(
            [
                "type": .string("catch_up"), "channels": .integer(report.channels),
                "messages": .integer(report.messages), "complete": .bool(report.isComplete),
                "gaps": .integer(report.gaps),
            ],
            human:
                "  caught up\(report.pass > 1 ? " (second pass)" : ""): \(report.messages) messages in "
                + "\(report.channels) chats" + (report.isComplete || report.pass == 1 ? "" : " (interrupted)")
                + (report.gaps > 0 ? ", \(report.gaps) gaps" : ""))
        firstScreen()
    }

    /// The page before what `older` showed last of `channel` (the newest gap's top first, else the oldest
    /// cached message).
    func older(_ channel: String) async throws(StoatClientError) -> ChannelHistory {
        let history = client.cachedHistory(of: channel)
        let scrolled = state.withLock { $0.scrolledTo[channel] }
        let start =
            history.gaps.last?.before ?? scrolled ?? history.messages.first?.id ?? client.newestMessage(in: channel)
        guard let start else { return ChannelHistory(channelID: channel, isStale: false) }
        let page = try await client.history(of: channel, before: start)
        if let oldest = page.messages.first?.id { state.withLock { $0.scrolledTo[channel] = oldest } }
        return page
    }

    /// Prints every message the socket delivers until the client stops; an observer that fell behind says
    /// so and observes again (the cache kept every message).
    func printMessages(_ first: AsyncThrowingStream<MessageFeedItem, any Error>) async {
        var feed = first
        while !Task.isCancelled {
            do {
                for try await item in feed {
                    switch item {
                    case .message(.received(let message, let origin)):
                        self.message(message, caughtUp: origin == .caughtUp)
                    case .message(.updated(let change)): updated(change)
                    case .message(.deleted(let id, let channel, _)): deleted(id, in: channel)
                    case .catchUp(let report): catchUp(report)
                    }
                }
                return
            } catch {
                let message = (error as? StoatClientError)?.message ?? "\(error)"
                timeline.record(
                    ["type": .string("warning"), "text": .string(message)],
                    human: "  (missed messages while printing: \(terminalSafe(message)))")
                feed = client.messageFeed
            }
        }
    }

    /// Prints every change of the outbox (``StoatClient/outboxEvents``) until the client stops.
    func printOutbox(_ events: AsyncStream<OutboxEvent>) async {
        for await event in events {
            switch event {
            case .changed(let entry): outbox(entry)
            case .unreadable(let reason):
                timeline.record(
                    ["type": .string("warning"), "text": .string(reason)], human: "  (outbox: \(terminalSafe(reason)))")
            }
        }
    }

    func outbox(_ entry: OutboxEntry) {
        var line: [String: JSONLine.Value] = [
            "type": .string("outbox"), "kind": .string(entry.kind.rawValue), "channel": .string(entry.channel),
            "nonce": .string(entry.nonce), "state": .string(entry.state.name),
        ]
        let what = entry.kind == .send ? "" : " \(entry.kind.rawValue) of \(terminalSafe(entry.target ?? ""))"
        var human =
            "  outbox \(terminalSafe(entry.nonce))\(what) in #\(terminalSafe(chatName(entry.channel))): \(entry.state.name)"
        switch entry.state {
        case .queued(let retryAfter?):
            let seconds = Int((retryAfter / .seconds(1)).rounded(.up))
            line["retry_after"] = .integer(seconds)
            human += " (slowmode: \(seconds) s)"
        case .sent(let id):
            line["id"] = .string(id)
            human += " as \(terminalSafe(id))"
        case .failed(let failure):
            line["reason"] = .string(failure.code.rawValue)
            if failure.mayHaveBeenSent { line["may_have_been_sent"] = .bool(true) }
            human += " (\(terminalSafe(failure.code.rawValue)): \(terminalSafe(failure.message)))"
        case .queued, .sending:
            break
        }
        if let progress = entry.progress {
            line["progress"] = .object(["sent": .integer(Int(progress.sent)), "total": .integer(Int(progress.total))])
            human += " (\(progress.sent) of \(progress.total) bytes)"
        }
        timeline.record(line, human: human)
    }

    /// Prints each draft the client holds (the store's, once signed in), by channel.
    func drafts() {
        for (channel, text) in client.drafts.sorted(by: { $0.key < $1.key }) {
            timeline.record(
                ["type": .string("draft"), "channel": .string(channel), "text": .string(text)],
                human: "  draft in #\(terminalSafe(chatName(channel))): \(terminalSafe(text))")
        }
    }

    /// Prints every change of the push subscription's status until the client stops (not the first `off`).
    func printPush() async {
        var last = PushStatus.off
        for await status in client.pushUpdates where status != last {
            last = status
            var line: [String: JSONLine.Value] = ["type": .string("push")]
            var human = "  push: "
            switch status {
            case .off:
                line["state"] = .string("off")
                human += "off"
            case .pending:
                line["state"] = .string("pending")
                human += "waiting for CONNECTED"
            case .subscribed:
                line["state"] = .string("subscribed")
                human += "subscribed"
            case .failed(let error):
                line["state"] = .string("failed")
                line["reason"] = .string(error.code.rawValue)
                human += "failed (\(terminalSafe(error.code.rawValue)))"
            }
            timeline.record(line, human: human)
        }
    }

    /// Prints every deadline the server sets or ends (``StoatClient/restrictionEvents``) until the client stops.
    func printRestrictions(_ events: AsyncStream<StoatRestrictionEvent>) async {
        for await event in events { deadline(event) }
    }

    func deadline(_ event: StoatRestrictionEvent) {
        switch event {
        case .started(let deadline):
            let target = deadline.target
            if deadline.kind == .timeout {
                let until = deadline.until.map(Self.timestamp) ?? "?"
                timeline.record(
                    ["type": .string("timeout"), "server": .string(target), "until": .string(until)],
                    human: "  timed out in server \(terminalSafe(target)) until \(until): reading only")
            } else {
                let seconds = deadline.retryAfter ?? 0
                timeline.record(
                    ["type": .string("slowmode"), "channel": .string(target), "retry_after": .integer(seconds)],
                    human: "  slowmode in #\(terminalSafe(chatName(target))): next message in \(seconds) s")
            }
        case .ended(let deadline, let reason):
            let target = deadline.target
            if deadline.kind == .timeout {
                timeline.record(
                    ["type": .string("timeout_ended"), "server": .string(target)],
                    human: "  timeout in server \(terminalSafe(target)) is over (\(reason))")
            } else {
                timeline.record(
                    ["type": .string("slowmode_ended"), "channel": .string(target)],
                    human: "  slowmode in #\(terminalSafe(chatName(target))) is over (\(reason))")
            }
        }
    }

    /// A date as Stoat writes it: ISO 8601 in UTC with milliseconds.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private func chatName(_ channel: String) -> String {
        client.chats.first { $0.id == channel }?.name ?? channel
    }

    func message(_ message: Message, caughtUp: Bool = false) {
        let chat = client.chats.first { $0.id == message.channel }?.name ?? message.channel
        let author = client.user(message.author).map { $0.displayName ?? $0.username } ?? message.author
        var line: [String: JSONLine.Value] = [
            "type": .string("message"), "channel": .string(message.channel), "id": .string(message.id),
            "author": .string(message.author), "content": .optional(message.content),
        ]
        if caughtUp { line["caught_up"] = .bool(true) }
        timeline.record(
            line,
            human: "  #\(terminalSafe(chat)) \(terminalSafe(author)): \(terminalSafe(message.content ?? ""))"
                + (caughtUp ? " (caught up)" : ""))
    }

    func updated(_ change: MessageChange) {
        timeline.record(
            [
                "type": .string("message_update"), "channel": .string(change.channel), "id": .string(change.id),
                "content": .optional(change.content),
            ],
            human: "  edited in \(terminalSafe(change.channel)): \(terminalSafe(change.content ?? ""))")
    }

    func deleted(_ id: String, in channel: String) {
        timeline.record(
            ["type": .string("message_delete"), "channel": .string(channel), "id": .string(id)],
            human: "  deleted in \(terminalSafe(channel)): \(terminalSafe(id))")
    }

    /// The `history` line of a jump: the page, and the gaps that part it from what the client holds.
    func jumped(_ page: HistoryPage) {
        var shown = ShownHistory(client.cachedHistory(of: page.channelID))
        shown.insert(page)
        let first = page.messages.first?.id
        let last = page.messages.last?.id
        let bounds = shown.gaps.filter { $0.before == first || $0.after == last }
        history(
            ChannelHistory(channelID: page.channelID, messages: page.messages, isStale: false, gaps: bounds),
            target: .some(page.target))
    }

    func history(_ history: ChannelHistory, target: String?? = nil) {
        let messages: [JSONLine.Value] = history.messages.map { message in
            .object([
                "id": .string(message.id), "author": .string(message.author),
                "content": .optional(message.content),
            ])
        }
        let human =
            "history of \(terminalSafe(history.channelID))\(history.isStale ? " (from the cache; may miss messages)" : "")"
            + history.messages.map { message in
                let author = client.user(message.author)?.username ?? message.author
                return "\n  \(terminalSafe(author)): \(terminalSafe(message.content ?? ""))"
            }.joined()
        let gaps: [JSONLine.Value] = history.gaps.map {
            .object(["after": .string($0.after), "before": .string($0.before)])
        }
        var fields: [String: JSONLine.Value] = [
            "type": .string("history"), "channel": .string(history.channelID), "stale": .bool(history.isStale),
            "messages": .array(messages), "gaps": .array(gaps),
        ]
        if let target { fields["target"] = .optional(target) }
        timeline.record(fields, human: human + (history.gaps.isEmpty ? "" : "\n  (\(history.gaps.count) gaps)"))
    }
}

/// Standard input's lines, read on a thread of their own so no task blocks. The first line can be set
/// apart as a secret (`--password-stdin`), which never reaches the commands.
final class StandardInputLines: Sendable {
    /// The commands: every line (after the secret, when there is one).
    let lines: AsyncStream<String>
    private let secretLine: AsyncStream<String>

    init(firstLineIsSecret: Bool = false) {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let (secretLine, secret) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        self.secretLine = secretLine
        let thread = Thread {
            if firstLineIsSecret, let line = readLine(strippingNewline: true) { secret.yield(line) }
            secret.finish()
            while let line = readLine() { continuation.yield(line.trimmingCharacters(in: .whitespaces)) }
            continuation.finish()
        }
        thread.start()
    }

    /// The first line when it was set apart as a secret (as typed: spaces are part of a password), else
    /// `nil`.
    func secret() async -> String? {
        for await line in secretLine { return line }
        return nil
    }
}
