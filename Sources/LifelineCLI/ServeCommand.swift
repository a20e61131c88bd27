public import ArgumentParser
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
/// `{"api":…,"events":…,"admin":…,"email":…,"password":…,"token":…,"user_id":…,"bot_token":…,"bot_id":…}`.
/// Printing the demo account's password and the tokens is the point of the command (they are a local
/// fixture); nothing else logs them. The server follows stoatchat's rules, rate limits included, unless
/// `--no-rate-limits` is given.
public struct Serve: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a Stoat-compatible reference server with fault injection."
    )

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

    /// Refuses an events server the reference server cannot be.
    public func validate() throws {
        guard ReferenceServer.EventsServer(named: events) != nil else {
            throw ValidationError("--events must be bonfire or gateway, not \(events)")
        }
    }

    /// Starts the server, prints where it is, and stops it cleanly on SIGINT or SIGTERM.
    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let server = try await ReferenceServer.start(
            .init(
                host: host, port: port, dataFile: data, rateLimits: noRateLimits ? .disabled : .stoat,
                events: ReferenceServer.EventsServer(named: events) ?? .bonfire))
        let account = server.defaultAccount
        let bot = server.defaultBot
        if json {
            let fields: [(String, String)] = [
                ("api", server.apiURL.absoluteString), ("events", server.eventsURL.absoluteString),
                ("admin", server.adminURL.absoluteString), ("email", account.email),
                ("password", account.password), ("token", account.token), ("user_id", account.userID),
                ("bot_token", bot.token), ("bot_id", bot.userID),
            ]
            emit(try Self.jsonLine(fields))
        } else {
            emit(
                """
                Stoat reference server (events server: \(events))
                  API:     \(server.apiURL.absoluteString)
                  Events:  \(server.eventsURL.absoluteString)?version=1&format=json (or format=msgpack)
                  Health:  \(server.healthURL.absoluteString)
                  Admin:   \(server.adminURL.absoluteString) (loopback only)
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
