public import ArgumentParser
import LifelineCLIOutput
import StoatReferenceServer
import UnixSignals

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `lifeline serve`: runs the Stoat reference server with fault injection until Ctrl-C or SIGTERM.
///
/// It prints the API and events URLs, a ready-to-use account, a bot and the admin address; with `--json`,
/// exactly one JSON line once it accepts connections:
/// `{"api":…,"events":…,"admin":…,"files":…,"email":…,"password":…,"token":…,"user_id":…,"bot_token":…,"bot_id":…,
/// "servers":[{"id":…,"name":…,"channels":[{"id":…,"name":…}]}]}` — the seeded world, so a script knows where to
/// post (through the admin API, whose examples `serve --help` prints); with `--gateway-port`, `"gateway_api":…`
/// follows `events`.
/// Printing the demo account's password and the tokens is the point of the command (they are a local
/// fixture); nothing else logs them. The server follows stoatchat's rules, rate limits included, unless
/// `--no-rate-limits` is given.
public struct Serve: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a Stoat-compatible reference server with fault injection.",
        discussion: Self.adminExamples
    )

    /// The admin API, in `serve --help`: a few calls a test script makes, and where the rest are listed.
    static let adminExamples = """
        The admin API (loopback only) changes the world and injects faults while
        clients run. ADMIN is the printed admin address, USER a user id, CHANNEL a
        channel of the seeded world (printed; under "servers" with --json):

          JSON='Content-Type: application/json'
          curl -X POST ADMIN/messages -H "$JSON" \\
            -d '{"user_id":"USER","channel_id":"CHANNEL","content":"!ping"}'
          curl -X POST ADMIN/users -H "$JSON" -d '{"username":"friend"}'
          curl -X POST ADMIN/drop-sockets -H "$JSON" -d '{}'
          curl -X POST ADMIN/refuse-upgrades -H "$JSON" -d '{"count":3}'
          curl -X POST ADMIN/lose-upload-answers -H "$JSON" -d '{"count":1}'
          curl -X POST ADMIN/slow-uploads -H "$JSON" -d '{"bytes_per_second":65536}'
          curl -X POST ADMIN/upload-limit -H "$JSON" -d '{"tag":"attachments","bytes":1000}'
          curl ADMIN/push-subscriptions
          curl -X POST ADMIN/reset -H "$JSON" -d '{}'
          curl ADMIN/state

        As late and lossy as stoatchat: last_message_id is committed ~6 s after a
        channel's last message (31 s at most), by the server's clock, unless
        turned off; the rest are faults:

          curl -X POST ADMIN/last-message-id-lag -H "$JSON" -d '{"enabled":false}'
          curl -X POST ADMIN/webhook-messages -H "$JSON" \
            -d '{"channel_id":"CHANNEL","content":"hook","name":"CI"}'
          curl -X POST ADMIN/restart-session -H "$JSON" \
            -d '{"user_id":"USER","down_milliseconds":500}'
          curl -X POST ADMIN/reorder-events -H "$JSON" -d '{"count":1}'

        The file server is at the URL GET / names under features.autumn (its own
        port). Every route and its body: StoatReferenceServer.md (Faults, A world
        with several users, Load, The admin API, The file server).
        """

    /// The port to listen on; 0 picks a free one.
    @Option(help: "The port to listen on (0 picks a free one).")
    public var port: Int = 0

    /// The address to bind.
    @Option(help: "The address to bind (loopback by default; the admin API answers loopback peers only).")
    public var host: String = "127.0.0.1"

    /// A SQLite file that keeps the data across restarts.
    @Option(help: "A SQLite file to keep accounts, sessions and data in across restarts.")
    public var data: String?

    /// Turn the REST rate limits off.
    @Flag(help: "Turn Stoat's REST rate limits off (for load tests of a client).")
    public var noRateLimits = false

    /// Which events server the socket behaves as.
    @Option(
        help: ArgumentHelp(
            "The events server the socket behaves as: bonfire (stoatchat's, the default) or gateway (Stoat's new Elixir server, which refuses Subscribe).",
            valueName: "bonfire|gateway"))
    public var events: String = "bonfire"

    /// A second port whose events socket behaves as the gateway, for the same world.
    @Option(
        help: """
            Also listen on this port (0 picks a free one) as Stoat's gateway, for the same world: a client given \
            its API (gateway_api) meets the gateway, others the --events server.
            """)
    public var gatewayPort: Int?

    /// Print one JSON line instead of text.
    @Flag(help: "Print one JSON line with the URLs and the demo account once the server accepts connections.")
    public var json = false

    /// Creates the command; ArgumentParser calls this.
    public init() {}

    /// One JSON object on one line, keys in the given order (JSONEncoder's dictionary order is unspecified).
    static func jsonLine(_ fields: [(String, String)]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let pairs = try fields.map { key, value in
            "\"\(key)\":" + String(decoding: try encoder.encode(value), as: UTF8.self)
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    /// A server of the seeded world, as the `--json` line's `servers` lists it.
    struct WorldServer {
        struct Channel {
            var id: String
            var name: String
        }

        var id: String
        var name: String
        var channels: [Channel]
    }

    /// The seeded world: every server with its channels, in the server's order.
    static func world(_ server: ReferenceServer) async -> [WorldServer] {
        var world: [WorldServer] = []
        for stored in await server.servers() {
            var channels: [WorldServer.Channel] = []
            for id in stored.channels {
                channels.append(.init(id: id, name: await server.channel(id: id)?.name ?? ""))
            }
            world.append(WorldServer(id: stored.id, name: stored.name, channels: channels))
        }
        return world
    }

    /// `[{"id","name","channels":[{"id","name"}]}]`, keys in that order.
    static func worldJSON(_ server: ReferenceServer) async throws -> String {
        let servers = try await world(server).map { stored in
            let channels = try stored.channels.map { channel in
                try jsonLine([("id", channel.id), ("name", channel.name)])
            }
            return String(try jsonLine([("id", stored.id), ("name", stored.name)]).dropLast())
                + ",\"channels\":[" + channels.joined(separator: ",") + "]}"
        }
        return "[" + servers.joined(separator: ",") + "]"
    }

    /// The seeded world for the text output: a line per server and per channel.
    static func worldText(_ server: ReferenceServer) async -> String {
        var lines: [String] = []
        for stored in await world(server) {
            lines.append("  server:   \(stored.name) \(stored.id)")
            for channel in stored.channels { lines.append("    #\(channel.name) \(channel.id)") }
        }
        return lines.joined(separator: "\n")
    }

    /// Refuses an events server the reference server cannot be.
    public func validate() throws {
        guard ReferenceServer.EventsServer(named: events) != nil else {
            throw ValidationError("--events must be bonfire or gateway, not \(events)")
        }
        if let gatewayPort {
            guard (0...65_535).contains(gatewayPort) else {
                throw ValidationError("--gateway-port must be 0–65535, got \(gatewayPort)")
            }
            guard events == ReferenceServer.EventsServer.bonfire.name else {
                throw ValidationError("--gateway-port is a second port beside bonfire's: give it without --events")
            }
        }
    }

    /// Starts the server, prints where it is, and stops it cleanly on SIGINT or SIGTERM.
    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        var configuration = ReferenceServer.Configuration(
            host: host, port: port, dataFile: data, rateLimits: noRateLimits ? .disabled : .stoat,
            events: ReferenceServer.EventsServer(named: events) ?? .bonfire)
        configuration.gatewayPort = gatewayPort
        let server = try await ReferenceServer.start(configuration)
        let account = server.defaultAccount
        let bot = server.defaultBot
        if json {
            var fields: [(String, String)] = [
                ("api", server.apiURL.absoluteString), ("events", server.eventsURL.absoluteString),
                ("admin", server.adminURL.absoluteString), ("files", server.fileServerURL.absoluteString),
                ("email", account.email),
                ("password", account.password), ("token", account.token), ("user_id", account.userID),
                ("bot_token", bot.token), ("bot_id", bot.userID),
            ]
            if let gateway = server.gatewayAPIURL { fields.insert(("gateway_api", gateway.absoluteString), at: 2) }
            let world = try await Self.worldJSON(server)
            emit(String(try Self.jsonLine(fields).dropLast()) + ",\"servers\":" + world + "}")
        } else {
            emit(
                """
                Stoat reference server (events server: \(events))
                  API:     \(server.apiURL.absoluteString)\(server.gatewayAPIURL.map { "\n  Gateway: \($0.absoluteString) (its API; the events socket is the gateway)" } ?? "")
                  Events:  \(server.eventsURL.absoluteString)?version=1&format=json (or format=msgpack)
                  Health:  \(server.healthURL.absoluteString)
                  Admin:   \(server.adminURL.absoluteString) (loopback only; examples in serve --help)
                  Files:   \(server.fileServerURL.absoluteString) (the file server GET / names)
                World
                \(await Self.worldText(server))
                Ready-to-use account
                  email:    \(account.email)
                  password: \(account.password)
                  token:    \(account.token)
                  user id:  \(account.userID)
                Bot (X-Bot-Token, or this token on the events socket)
                  token:    \(bot.token)
                  user id:  \(bot.userID)
                Press Ctrl-C to stop.
                """)
        }
        for await _ in signals { break }
        await server.stop()
    }
}
