import ArgumentParser
import Foundation
import Lifeline
import LifelineCLIOutput
import LifelineCore
import LifelineStoat
import StoatReferenceServer

/// `lifeline demo`: a real session against an in-process reference server, through every state of the
/// specification, in well under a minute.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show Lifeline keeping a session alive: a real client and server, through every state.",
        discussion: """
            Starts a Stoat reference server on a free loopback port and drives a real session over real \
            sockets: onboarding, a dropped socket with refused reconnects and the backoff, a silent server \
            caught by the heartbeat, the device going offline and back, a subscription restored after \
            reconnecting, an external logout, a suspended account's tailored error, and dismiss. Timings are \
            shortened and say so. Exits 0 only if the session behaved as specified.
            """
    )

    @Flag(help: "Print the timeline as JSON lines instead of text.")
    var json = false

    func run() async throws {
        let script = DemoScript(json: json)
        let passed = try await script.run()
        if !passed { throw ExitCode(1) }
    }
}

/// The demo's timings: the specification's, shortened so the whole tour takes seconds.
enum DemoTimings {
    static let retry = policy(unit: .milliseconds(200), ceiling: .seconds(5))
    /// The session checks after an `InvalidSession`: 3, ≈0.2 s and ≈0.6 s apart instead of ≈2 s and ≈6 s.
    static let sessionCheck = sessionCheckPolicy()

    private static func policy(unit: Duration, ceiling: Duration) -> RetryPolicy {
        do {
            return try RetryPolicy(unit: unit, ceiling: ceiling)
        } catch {
            preconditionFailure("the demo's retry policy is invalid: \(error)")
        }
    }

    private static func sessionCheckPolicy() -> SessionCheckPolicy {
        do {
            return try SessionCheckPolicy(checks: 3, backoff: policy(unit: .milliseconds(200), ceiling: .seconds(5)))
        } catch {
            preconditionFailure("the demo's session check policy is invalid: \(error)")
        }
    }
    static let connection = StoatConnectionFactory.Configuration(
        heartbeatInterval: .seconds(2), pongTimeout: .seconds(1), connectTimeout: .milliseconds(1500),
        readyTimeout: .seconds(3))
    static let summary =
        "retry unit 0.2 s instead of 1 s · Ping every 2 s instead of 30 s · Pong within 1 s instead of 10 s · "
        + "first message within 1.5 s instead of 10 s · InvalidSession checked 3 times over ≈0.8 s instead of ≈8 s"
}

/// Follows the session's snapshots and lets the script wait for the one it expects.
actor DemoWatcher {
    private var seen: [SessionSnapshot] = []
    private var waiters:
        [(
            after: Int, predicate: @Sendable (SessionSnapshot) -> Bool,
            continuation: CheckedContinuation<SessionSnapshot?, Never>
        )] = []
    private(set) var latestArrival = ContinuousClock.now

    var count: Int { seen.count }
    var latest: SessionSnapshot? { seen.last }

    func observe(_ snapshot: SessionSnapshot) {
        seen.append(snapshot)
        latestArrival = .now
        let index = seen.count - 1
        var remaining:
            [(
                after: Int, predicate: @Sendable (SessionSnapshot) -> Bool,
                continuation: CheckedContinuation<SessionSnapshot?, Never>
            )] = []
        for waiter in waiters {
            if index >= waiter.after && waiter.predicate(snapshot) {
                waiter.continuation.resume(returning: snapshot)
            } else {
                remaining.append(waiter)
            }
        }
        waiters = remaining
    }

    /// Waits for a snapshot at or after index `after` that matches, or gives up after `timeout`.
    func wait(
        after: Int, timeout: Duration, _ predicate: @escaping @Sendable (SessionSnapshot) -> Bool
    ) async -> SessionSnapshot? {
        if let match = seen.dropFirst(after).first(where: predicate) { return match }
        let deadline = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expire(after: after)
        }
        defer { deadline.cancel() }
        return await withCheckedContinuation { continuation in
            waiters.append((after, predicate, continuation))
        }
    }

    private func expire(after: Int) {
        let expired = waiters.filter { $0.after == after }
        waiters.removeAll { $0.after == after }
        for waiter in expired { waiter.continuation.resume(returning: nil) }
    }
}

/// The demo's story, step by step.
struct DemoScript {
    let json: Bool

    func run() async throws -> Bool {
        let timeline = Timeline(json: json)
        timeline.say("Lifeline demo — a real Stoat session against an in-process reference server.")
        timeline.say("Timings are shortened: \(DemoTimings.summary).")
        let server = try await ReferenceServer.start()
        let network = ManualNetworkMonitor(.online)
        let configuration = StoatClient.Configuration(
            connection: DemoTimings.connection,
            session: Session.Configuration(
                retryPolicy: DemoTimings.retry, sessionCheck: DemoTimings.sessionCheck, healthPollInterval: .seconds(1)),
            healthURL: server.healthURL, friendlyName: "lifeline demo")
        let client = StoatClient(apiURL: server.apiURL, configuration: configuration, network: network)
        let watcher = DemoWatcher()
        let follower = Task {
            for await snapshot in client.session.states {
                timeline.show(snapshot)
                await watcher.observe(snapshot)
            }
        }
        let runner = Task { await client.run() }
        let spinner = json || isatty(STDOUT_FILENO) != 1 ? nil : Spinner(watcher: watcher)
        var failures: [String] = []

        func step(_ title: String, _ body: () async throws -> Bool) async {
            timeline.say("\n▸ \(title)")
            spinner?.start(title)
            let ok = (try? await body()) ?? false
            spinner?.stop()
            if !ok {
                failures.append(title)
                timeline.say(timeline.paint("  ✗ the session did not do what the specification says", .red))
            }
        }

        func expect(
            _ predicate: @escaping @Sendable (SessionSnapshot) -> Bool, timeout: Duration = .seconds(10)
        ) async -> SessionSnapshot? {
            await watcher.wait(after: await watcher.count, timeout: timeout, predicate)
        }
        func entered(_ state: SessionState) -> @Sendable (SessionSnapshot) -> Bool {
            { $0.transitions.last?.to == state }
        }

        let user = server.pendingAccount
        var token = ""
        await step("A new account logs in and picks a username (LOGIN_UNCACHED, NO_USER, USER_CREATED)") {
            async let onboarding = expect(entered(.onboarding))
            guard case .connecting(let session) = await client.logIn(email: user.email, password: user.password)
            else { return false }
            token = session.token
            guard await onboarding != nil else { return false }
            async let connected = expect(entered(.connected))
            try await client.session.submitUsername("demo_user")
            return await connected != nil
        }
        await step("It subscribes to a server; Lifeline records the subscription") {
            async let recorded = expect { !$0.significantEvents.isEmpty }
            await client.session.subscribe(server: server.lobbyServerID)
            return await recorded != nil
        }
        await step("The server drops the socket and refuses the next two upgrades: backoff, then back") {
            await server.refuseNextUpgrades(2)
            async let connected = expect(entered(.connected), timeout: .seconds(15))
            _ = await server.dropAllSockets()
            guard await connected != nil else { return false }
            let lobby = server.lobbyServerID
            let restored =
                (try? await server.waitUntil(timeout: .seconds(5)) { records, _ in
                    records.last?.receivedFrames.contains { $0.contains(#""type":"Subscribe""#) && $0.contains(lobby) }
                        == true
                }) != nil
            timeline.say(
                restored
                    ? "  ✓ the subscription was replayed on the new socket" : "  ✗ the subscription was not replayed")
            return restored
        }
        await step("The server goes silent: no Pong within the timeout, the heartbeat drops the socket") {
            await server.setIgnoresPings(true)
            let dropped = await expect { snapshot in
                snapshot.transitions.contains {
                    $0.to == .disconnected && $0.cause?.code == .temporary(.heartbeatTimeout)
                }
            }
            await server.setIgnoresPings(false)
            guard dropped != nil else { return false }
            return await expect(entered(.connected)) != nil
        }
        await step("A reconnect is refused; the user taps \"reconnect now\" instead of waiting (RECONNECT_NOW)") {
            await server.refuseNextUpgrades(1)
            async let second = expect { $0.transitions.last?.to == .disconnected && $0.failures == 2 }
            _ = await server.dropAllSockets()
            guard await second != nil else { return false }
            async let connected = expect(entered(.connected))
            await client.session.reconnectNow()
            return await connected != nil
        }
        await step("The device goes offline (simulated): DISCONNECTED goes straight on to OFFLINE, no retries") {
            network.set(.offline)
            async let offline = expect(entered(.offline))
            _ = await server.dropAllSockets()
            guard await offline != nil else { return false }
            try await Task.sleep(for: .milliseconds(800))
            timeline.say("  the network comes back (DEVICE_ONLINE)")
            async let connected = expect(entered(.connected))
            network.set(.online)
            return await connected != nil
        }
        await step("The session is deleted on another device: Logout, then the login screen says so") {
            async let ready = expect { $0.transitions.last?.to == .ready && $0.presentation.notice == .loggedOut }
            _ = await server.revokeSession(token: token)
            return await ready != nil
        }
        await step("A cached session resumes (LOGIN_CACHED); then the account is suspended and the session revoked") {
            let cached = await server.createSession(userID: user.userID, name: "cached")
            async let connected = expect(entered(.connected))
            await client.resume(SessionCredentials(token: cached, userID: user.userID))
            guard await connected != nil else { return false }
            _ = await server.setUserFlags(1, userID: user.userID)
            async let tailored = expect { snapshot in
                if case .permanentError(let error) = snapshot.presentation.screen {
                    return error.standing == .suspended
                }
                return false
            }
            _ = await server.dropAllSockets()
            _ = await server.revokeSession(token: cached)
            return await tailored != nil
        }
        await step("The user dismisses the error: DISPOSE, then READY") {
            async let ready = expect(entered(.ready))
            await client.session.dismissError()
            return await ready != nil
        }

        runner.cancel()
        await runner.value
        await follower.value
        await server.stop()
        printEdges(timeline)
        let passed = failures.isEmpty
        if json {
            emit(
                JSONLine.encode(["type": .string("demo"), "passed": .bool(passed), "failed_steps": .strings(failures)]))
        } else {
            timeline.say(
                passed
                    ? timeline.paint("\nThe session behaved as specified.", .green)
                    : timeline.paint(
                        "\nThe session did not behave as specified in: \(failures.joined(separator: "; "))", .red))
        }
        return passed
    }

    private func printEdges(_ timeline: Timeline) {
        let taken = Set(timeline.transitions.map { "\($0.from.rawValue)|\($0.event.rawValue)|\($0.to.rawValue)" })
        let edges = SessionTransitionTable.edges
        if json {
            for edge in edges {
                emit(
                    JSONLine.encode([
                        "type": .string("edge"), "from": .string(edge.from.rawValue),
                        "event": .string(edge.event.rawValue),
                        "to": .string(edge.to.rawValue), "origin": .string(edge.origin.rawValue),
                        "taken": .bool(
                            taken.contains("\(edge.from.rawValue)|\(edge.event.rawValue)|\(edge.to.rawValue)")),
                    ]))
            }
            return
        }
        let rows = edges.map { edge in
            let was = taken.contains("\(edge.from.rawValue)|\(edge.event.rawValue)|\(edge.to.rawValue)")
            return [
                edge.from.rawValue, edge.event.rawValue, edge.to.rawValue, edge.origin.rawValue, was ? "taken" : "—",
            ]
        }
        let count = edges.filter { taken.contains("\($0.from.rawValue)|\($0.event.rawValue)|\($0.to.rawValue)") }.count
        timeline.say("\nEdges of the lifecycle (\(count) of \(edges.count) taken in this run):")
        emit(TextTable.render(header: ["FROM", "EVENT", "TO", "ORIGIN", "THIS RUN"], rows: rows))
    }
}

/// A spinner with the retry countdown, for a terminal.
final class Spinner: @unchecked Sendable {
    // start/stop are called from the demo's one task; the drawing task only reads its own copies.
    private var task: Task<Void, Never>?
    private let watcher: DemoWatcher

    init(watcher: DemoWatcher) { self.watcher = watcher }

    func start(_ title: String) {
        let watcher = watcher
        task = Task {
            let frames = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
            var index = 0
            while !Task.isCancelled {
                var status = ""
                if let latest = await watcher.latest, let retry = latest.nextRetry {
                    let since = (ContinuousClock.now - (await watcher.latestArrival)).secondsValue
                    let left = max(0, (retry - latest.time).secondsValue - since)
                    status = String(format: " retrying in %.1fs", left)
                }
                let state = await watcher.latest?.state.rawValue ?? ""
                writeToStandardOutput("\r\u{1B}[2K\(frames[index % frames.count]) \(state)\(status)")
                index += 1
                try? await Task.sleep(for: .milliseconds(80))
            }
        }
    }

    func stop() {
        task?.cancel()
        task = nil
        writeToStandardOutput("\r\u{1B}[2K")
    }
}
