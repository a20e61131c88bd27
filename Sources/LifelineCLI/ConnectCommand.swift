import ArgumentParser
import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineStore
import UnixSignals

/// `lifeline connect`: a session against a real server, to watch and to script.
struct Connect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keep a session alive against a Stoat server (or lifeline serve), and print its timeline.",
        discussion: """
            Log in with a session token (LOGIN_CACHED) or an email and password (LOGIN_UNCACHED). Commands on \
            standard input, one per line: logout, retry, offline, online, subscribe ID, unsubscribe ID, typing \
            CHANNEL, username NAME, cancel, dismiss, quit. The end of input does not end the session; quit, \
            SIGINT and SIGTERM do (exit 0). A login refused in READY prints why and exits 1. With --json, \
            standard output carries one JSON object per line and nothing else (format: README).
            """
    )

    enum NetworkSource: String, ExpressibleByArgument, CaseIterable {
        case system, manual
    }

    @Option(help: "The API's base URL, e.g. https://api.stoat.chat or lifeline serve's api.")
    var api: String

    @Option(help: "A session token: log in with it as a cached session (LOGIN_CACHED).")
    var token: String?

    @Option(help: "The token's user id, for tailoring a permanent error (looked up when omitted).")
    var userId: String?

    @Option(help: "Log in with this email (LOGIN_UNCACHED); needs --password.")
    var email: String?

    @Option(help: "The password for --email.")
    var password: String?

    @Option(help: "A TOTP code to answer an MFA challenge.")
    var totp: String?

    @Option(help: "Answer ONBOARDING with this username.")
    var username: String?

    @Option(help: "Subscribe to this server (repeatable); restored after every reconnect.")
    var subscribe: [String] = []

    @Option(help: "Where the device's network state comes from: system (the OS monitor) or manual (standard input's offline/online).")
    var network: NetworkSource = .system

    @Option(help: "The health endpoint to poll after 3 failures.")
    var health: String?

    @Option(help: "Seconds between heartbeat Pings.") var heartbeatInterval: Double = 30
    @Option(help: "Seconds to wait for a Pong.") var pongTimeout: Double = 10
    @Option(help: "Seconds to wait for the first message of a connection.") var connectTimeout: Double = 10
    @Option(help: "The retry delay's unit in seconds: (2^x − 1) × unit ± 20 %.") var retryUnit: Double = 1
    @Option(help: "The largest retry delay before jitter, in seconds.") var retryCeiling: Double = 300

    @Option(help: "An encrypted account store in this directory: created on first use with --email/--password, then opened with them (also offline) to start from the cached session.")
    var store: String?

    @Flag(help: "Erase this account's store (with --store and --email) and exit. The only way Lifeline erases it.")
    var eraseStore = false

    @Flag(help: "One JSON object per line on standard output.")
    var json = false

    func validate() throws {
        guard URL(string: api)?.scheme != nil else { throw ValidationError("--api must be a URL, got \(api).") }
        if eraseStore {
            guard store != nil, email != nil else { throw ValidationError("--erase-store needs --store and --email.") }
            return
        }
        switch (token, email, password) {
        case (.some, nil, nil) where store == nil: break
        case (nil, .some, .some): break
        default:
            throw ValidationError(
                store == nil ? "Give either --token, or --email with --password."
                    : "--store needs --email and --password: the store finds an account by its email, which it does not keep in clear.")
        }
        for (name, value) in [
            ("heartbeat-interval", heartbeatInterval), ("pong-timeout", pongTimeout),
            ("connect-timeout", connectTimeout), ("retry-unit", retryUnit),
        ] where !(value > 0 && value.isFinite) {
            throw ValidationError("--\(name) must be a positive number of seconds, got \(value).")
        }
        if !retryCeiling.isFinite { throw ValidationError("--retry-ceiling must be a number of seconds.") }
        do {
            _ = try RetryPolicy(unit: .seconds(retryUnit), ceiling: .seconds(retryCeiling))
        } catch {
            throw ValidationError("--retry-unit and --retry-ceiling: \(error.message)")
        }
        if let health, URL(string: health)?.scheme == nil { throw ValidationError("--health must be a URL.") }
    }

    func run() async throws {
        if eraseStore, let store, let email {
            try AccountStore(directory: URL(fileURLWithPath: store)).erase(email: email)
            emit(json ? JSONLine.encode(["type": .string("signin"), "outcome": .string("erased")]) : "Erased the store of \(email).")
            return
        }
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let apiURL = URL(string: api)!
        let monitor: any NetworkMonitor = network == .manual ? ManualNetworkMonitor(.online) : SystemNetworkMonitor.make()
        let configuration = StoatClient.Configuration(
            connection: StoatConnectionFactory.Configuration(
                heartbeatInterval: .seconds(heartbeatInterval), pongTimeout: .seconds(pongTimeout),
                connectTimeout: .seconds(connectTimeout)),
            session: Session.Configuration(
                retryPolicy: try RetryPolicy(unit: .seconds(retryUnit), ceiling: .seconds(retryCeiling)),
                subscriptionRenewal: .seconds(600)),
            healthURL: health.flatMap(URL.init(string:)), friendlyName: "lifeline connect")
        let client = StoatClient(apiURL: apiURL, configuration: configuration, network: monitor)
        let timeline = Timeline(json: json)
        let username = username
        let follower = Task {
            for await snapshot in client.session.states {
                timeline.show(snapshot)
                if snapshot.transitions.last?.to == .onboarding, let username {
                    try? await client.session.submitUsername(username)
                }
            }
        }
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        for server in subscribe { await client.session.subscribe(server: server) }

        guard await logIn(client, timeline: timeline) else {
            runner.cancel()
            await runner.value
            await follower.value
            throw ExitCode(1)
        }

        let commands = StandardInputLines()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await line in commands.lines {
                    if await Self.perform(line, client: client, monitor: monitor, timeline: timeline) == .quit { return }
                }
                // End of input does not end the session: wait for a signal (this task's cancellation).
                await untilCancelled()
            }
            group.addTask {
                for await _ in signals { return }
            }
            await group.next()
            group.cancelAll()
        }
        runner.cancel()
        await runner.value
        await follower.value
    }

    /// Logs in as the options say; `false` when the login was refused in READY.
    private func logIn(_ client: StoatClient, timeline: Timeline) async -> Bool {
        if let store, let email, let password {
            return await signIn(store: store, email: email, password: password, client: client)
        }
        if let token {
            var userID = userId
            if userID == nil {
                userID = try? await client.api.currentUser(SessionCredentials(token: token)).id
            }
            await client.resume(SessionCredentials(token: token, userID: userID))
            return true
        }
        guard let email, let password else { return false }
        var outcome = await client.logIn(email: email, password: password)
        if case .needsMFA(let challenge) = outcome {
            guard let totp else {
                let failure = LoginFailure(code: "MFA", message: "The account needs an MFA code: pass --totp.")
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

    /// The sign-in flow with the encrypted store: the first screen from the store, the session from its
    /// cache (LOGIN_CACHED, so an unreachable server only delays the connection) or, on first use, from the
    /// password's verification (LOGIN_UNCACHED).
    private func signIn(store directory: String, email: String, password: String, client: StoatClient) async -> Bool {
        let store = AccountStore(directory: URL(fileURLWithPath: directory))
        let verifier = StoatPasswordVerifier(api: client.api, friendlyName: "lifeline connect")
        var outcome = await store.signIn(email: email, password: password, verifier: verifier)
        if case .secondFactorRequired(let step) = outcome, let totp {
            outcome = await step.submit(SecondFactorResponse(method: .totp, code: totp))
        }
        var line: [String: JSONLine.Value] = ["type": .string("signin"), "outcome": .string(outcome.name)]
        if case .opened(_, let session) = outcome { line["session"] = .string(session.name) }
        if outcome.eraseOption != nil { line["can_erase"] = .bool(true) }  // offered, never done: --erase-store
        emit(json ? JSONLine.encode(line) : "sign-in: \(outcome.name)")
        switch outcome {
        case .created(let database, let session):
            try? database.close()
            await client.session.logIn(session, cached: false)
            return true
        case .opened(let database, let session):
            let recent = (try? await database.recentChats(limit: 10)) ?? []
            emit(json ? JSONLine.encode(["type": .string("chats"), "recent": .strings(recent.map(\.name))])
                 : "first screen: \(recent.count) chats from the store")
            try? database.close()
            switch session {
            case .cached(let cached):
                await client.resume(cached)
                return true
            case .verified(let fresh):
                // No session was cached (logged out earlier): the flow verified the password and cached this one.
                await client.session.logIn(fresh, cached: false)
                return true
            case .passwordMismatch, .serverUnreachable, .verificationFailed:
                return false
            }
        default:
            outcome.database.map { try? $0.close() }
            return false
        }
    }

    enum CommandResult { case done, quit }

    /// Performs one line of standard input.
    static func perform(_ line: String, client: StoatClient, monitor: any NetworkMonitor, timeline: Timeline) async -> CommandResult {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let command = words.first else { return .done }
        let argument = words.dropFirst().first
        let session = client.session
        var accepted = true
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
            }
        case ("subscribe", let id?): await session.subscribe(server: id)
        case ("unsubscribe", let id?): await session.unsubscribe(server: id)
        case ("typing", let id?): await session.beginTyping(channel: id)
        case ("username", let name?):
            do { try await session.submitUsername(name) } catch { accepted = false }
        default:
            timeline.command(line, accepted: false, reason: "unknown command")
            return .done
        }
        timeline.command(line, accepted: accepted, reason: accepted ? nil : "not accepted in \(session.snapshot.state.rawValue)")
        return .done
    }
}

/// Standard input's lines, read on a thread of their own so no task blocks.
final class StandardInputLines: Sendable {
    let lines: AsyncStream<String>

    init() {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        let thread = Thread {
            while let line = readLine() { continuation.yield(line.trimmingCharacters(in: .whitespaces)) }
            continuation.finish()
        }
        thread.start()
    }
}
