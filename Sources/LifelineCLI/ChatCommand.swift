import ArgumentParser
import Foundation
import Lifeline
import LifelineChat
import LifelineCore
import LifelineStoat
import LifelineStoatStore
import LifelineStore
import LifelineTerminal
import StoatReferenceServer

/// `lifeline chat`: a full-screen Stoat client in the terminal that shows every state of the session.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "A Stoat client in the terminal that shows every state of its session.",
        discussion: """
            With no --api, a local demo world: a reference server in this process with simulated people talking \
            in a few channels of two servers, signed in at once; ? lists the keys, and Alt-1 … Alt-0 inject \
            faults (a dropped socket, refused connections, the device offline, a silent server, a deaf socket, \
            an outage with its health alert, a logout from elsewhere, a suspended account) so that every state \
            of the lifecycle shows within a minute. With --api, a Stoat server: secrets as lifeline connect \
            takes them (LIFELINE_PASSWORD, LIFELINE_TOKEN, or typed into the login screen); --store keeps the \
            account in an encrypted store, whose chats show before any network.
            """
    )

    @Option(help: "The API's base URL, e.g. https://api.stoat.chat; without it, the local demo world.")
    var api: String?

    @Option(help: "An encrypted account store in this directory (as lifeline connect --store).")
    var store: String?

    @Option(help: "The account's email: filled in on the login screen, or signed in with LIFELINE_PASSWORD.")
    var email: String?

    @Option(help: "With --store: the account to open by its label, or LABEL@HOST.")
    var account: String?

    @Option(help: "A PEM file of certificate authorities to trust besides the system's.")
    var caFile: String?

    @Option(help: "A session token (LOGIN_CACHED); -TOKEN needs --token=. Prefer LIFELINE_TOKEN.")
    var token: String?

    @Option(help: "The token's user id (looked up when omitted).")
    var userId: String?

    @Flag(help: "Leave the mouse to the terminal (no click or wheel in the client).")
    var noMouse = false

    @Option(help: "The demo world's seed: the same seed, the same talk.")
    var seed: UInt64 = 1

    func validate() throws {
        if let api {
            guard URL(string: api)?.scheme != nil, ServerIdentity(api) != nil else {
                throw ValidationError("--api must be an http or https URL with a host, got \(api).")
            }
        } else if store != nil || account != nil || token != nil || caFile != nil {
            throw ValidationError("--store, --account, --token and --ca-file need --api (without it: the demo world).")
        }
        if account != nil, store == nil {
            throw ValidationError("--account picks an account of a store: it needs --store.")
        }
        if let caFile { _ = try CertificateAuthorities.load(caFile) }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw ValidationError("lifeline chat draws a full screen: run it in a terminal.")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let world: DemoWorld?
        let client: StoatClient
        let accountStore: AccountStore?
        if let api {
            world = nil
            var configuration = StoatClient.Configuration(friendlyName: "lifeline chat")
            configuration.session.wakeMonitor = SystemWakeMonitor.make()
            try CertificateAuthorities.trust(caFile, in: &configuration)
            client = StoatClient(apiURL: URL(string: api)!, configuration: configuration)
            accountStore = store.map { AccountStore(directory: URL(fileURLWithPath: $0)) }
        } else {
            let demo = try await DemoWorld.start(seed: seed)
            world = demo
            client = StoatClient(
                apiURL: demo.server.apiURL, configuration: Self.demoConfiguration(demo), network: demo.network)
            // No store: the demo starts from a cached session (LOGIN_CACHED: CONNECTING shows), and a sign-in
            // after a logout verifies the password with the server (LOGGING_IN shows).
            accountStore = nil
        }

        let model = await MainActor.run { StoatClientModel(client: client) }
        var settings = ChatDriver.Configuration(mode: .server, email: email ?? "")
        if let world {
            let newcomer = world.server.pendingAccount
            settings = ChatDriver.Configuration(
                mode: .demo, email: DemoWorld.email, password: DemoWorld.password,
                loginHints: [
                    "The demo's account: \(DemoWorld.email), password \(DemoWorld.password).",
                    "An account with no user yet (ONBOARDING): \(newcomer.email), password \(newcomer.password).",
                ],
                injectFault: { fault, channel, server in
                    await world.inject(fault, channel: channel, serverID: server)
                })
        }
        let configuration = settings
        // Raw mode, the alternate screen, bracketed paste and the mouse until the loop ends; LifelineTerminal's
        // Terminal also restores the terminal on SIGINT, SIGTERM, SIGHUP and SIGQUIT, and at exit.
        let terminal = try Terminal(options: noMouse ? .noMouse : .standard)
        defer { terminal.restore() }
        let size = terminal.size
        let driver = await MainActor.run {
            ChatDriver(client: client, model: model, store: accountStore, size: size, configuration: configuration)
        }
        await withDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            group.addTask { await model.run() }
            if let world { group.addTask { await world.talk() } }
            group.addTask {
                await signInAtStart(driver: driver, client: client, world: world, environment: environment)
            }
            // A frame the terminal refused is repainted whole with the next (the renderer forgets what it drew).
            await driver.run(input: terminal.events) { frame in
                try? terminal.draw(frame.grid, cursor: frame.cursor, changes: frame.changes)
            }
            group.cancelAll()
        }
        if let world { await world.server.stop() }
    }

    /// Signs in as the options say, at once: the demo's account, a token, or a password from the environment.
    /// Without any, the login screen asks.
    private func signInAtStart(
        driver: ChatDriver, client: StoatClient, world: DemoWorld?, environment: [String: String]
    ) async {
        let signIn = await MainActor.run { driver.signIn }
        if let world {
            await client.resume(SessionCredentials(token: world.account.token, userID: world.account.userID))
            return
        }
        if let token = token ?? environment["LIFELINE_TOKEN"] {
            var userID = userId
            if userID == nil { userID = try? await client.api.currentUser(SessionCredentials(token: token)).id }
            await client.resume(SessionCredentials(token: token, userID: userID))
            return
        }
        guard let password = environment["LIFELINE_PASSWORD"] else { return }
        if let signIn {
            let accounts = await MainActor.run { signIn.accounts }
            if let name = account, let chosen = try? Connect.account(named: name, in: accounts, api: client.api.server)
            {
                await signIn.signIn(account: chosen, password: password)
            } else if let email {
                await signIn.signIn(email: email, password: password)
            } else if let only = try? Connect.onlyAccount(in: accounts, api: client.api.server) {
                await signIn.signIn(account: only, password: password)
            }
        } else if let email {
            _ = await client.logIn(email: email, password: password)
        }
    }

    /// The demo's timings: a heartbeat every 5 s (a silent server shows within 8 s), the retry countdown at the
    /// specification's 1 s unit (readable), the delivery check and the health poll quick.
    static func demoConfiguration(_ world: DemoWorld) -> StoatClient.Configuration {
        let retry = (try? RetryPolicy(unit: .seconds(1), ceiling: .seconds(20))) ?? .spec
        let delivery = (try? DeliveryWatchPolicy(deadline: .seconds(5))) ?? .standard
        return StoatClient.Configuration(
            connection: StoatConnectionFactory.Configuration(
                heartbeatInterval: .seconds(5), pongTimeout: .seconds(3), connectTimeout: .seconds(4),
                readyTimeout: .seconds(5)),
            session: Session.Configuration(
                retryPolicy: retry, healthPollInterval: .seconds(2), healthPollBounds: .seconds(1)...(.seconds(60)),
                deliveryWatch: delivery),
            healthURL: world.server.healthURL, friendlyName: "lifeline chat (demo)")
    }
}
