package import ArgumentParser
import Foundation
import LifelineCLIOutput
import UnixSignals

/// `lifeline soak`: many sessions against the reference server under a seeded schedule of faults, checked all
/// along — one socket per session, no stale event changing a state, flat memory and work, one replay per
/// connection, no message lost or duplicated, each message delivered to the message stream once — and every
/// session back to CONNECTED in time once the faults stop. Every channel counts: each group has two, the session
/// opens one, and at the end a message the server lists in either is in the session's history or inside a gap it
/// records (else it is lost), and the open channel's edits and deletions have converged.
///
/// Each violation is printed as its own line when it is found; the last line is one JSON object:
/// `{"type":"soak","sessions":N,"seconds":S,"seed":SEED,"faults":K,"violations":V,"memory_growth":x,
/// "task_growth":y,"lost_messages":L,"duplicate_messages":D,"reconnected":R,"outbox_sent":…,"outbox_failed":…,
/// "outbox_lost":OL,"outbox_duplicated":OD,…,"heap_growth":h,"heap_mb":H}`. The exit status is 0 only when V, L, D,
/// OL and OD are 0 and R = N. `heap_growth` is the live heap's growth over the same windows as `memory_growth`
/// (`null` where glibc cannot say): reported beside it, not judged, to tell memory held from memory kept free.
package struct Soak: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Run many sessions through a seeded chaos of faults and check that nothing is lost.",
        discussion: """
            The reference server runs in a child process; the sessions (StoatClients, each with its cache and its \
            own device network) run in this one. For --seconds, a schedule drawn from --seed drops sockets, \
            refuses upgrades, makes the server silent or deaf to pings, delays Ready, sends garbage and oversized \
            frames, fails session lookups for a moment, takes devices offline, deafens some sockets (Pong only, no \
            events), loses the answers to some sends, states absurd numbers, lets events overtake each other and \
            restarts the gateway's session process under some sockets (every tenth session runs against the \
            server's gateway port, the others against bonfire), while other users post messages in both channels \
            of each group, edit and delete some, and the sessions send through their outboxes. last_message_id \
            lags as stoatchat's does throughout. After each reconnect the sessions catch up (pages of 25, 2 per \
            chat, so a long outage leaves a gap; a second pass 33 s after CONNECTED). Then the faults stop and \
            every session must be CONNECTED within the retry formula's bound, caught up by its second pass, and \
            every outbox message sent exactly once on the server (or failed with a reason). Timings are scaled \
            down (retry unit 0.2 s, Ping every 2 s, 1–2 s deadlines, a 1.5 s delivery deadline and a delivery \
            check every 3 s) so that a short run holds many cycles; stoatchat's lag is not. \
            Build in release mode for long runs: swift run -c release lifeline soak --sessions 1000 --seconds 600.
            """
    )

    @Option(help: "How many sessions (1–10 000).")
    var sessions = 100

    @Option(help: "How long the faults last, in seconds.")
    var seconds = 60.0

    @Option(help: "The seed of the fault schedule, the messages and every session's jitter (random when omitted).")
    var seed: UInt64?

    @Flag(help: "Print every line as JSON: progress, violations, and the summary.")
    var json = false

    @Flag(help: "Keep stoatchat's REST rate limits on the server (every client's first request then waits its turn).")
    var rateLimits = false

    package init() {}

    package func validate() throws {
        guard (1...10_000).contains(sessions) else { throw ValidationError("--sessions must be 1–10 000") }
        guard seconds >= 1, seconds <= 86_400 else { throw ValidationError("--seconds must be 1–86 400") }
    }

    package func run() async throws {
        let seed = seed ?? UInt64.random(in: 0...UInt64(Int64.max))
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let run = SoakRun(sessions: sessions, seconds: seconds, seed: seed, json: json, rateLimits: rateLimits)
        let finished = try await withThrowingTaskGroup(of: SoakSummary?.self) { group in
            group.addTask { try await run.run() }
            group.addTask {
                for await _ in signals { return nil }
                return nil
            }
            let first = try await group.next() ?? nil
            if first == nil {
                // SIGINT or SIGTERM: a run cut short proves nothing; its server child must not outlive it, and
                // the sessions' tasks need not wind down (none keeps a store).
                ReferenceServerProcess.stopAll(grace: .milliseconds(500))
                Foundation.exit(1)
            }
            group.cancelAll()
            return first
        }
        guard let summary = finished else { throw ExitCode(1) }
        if !json {
            emit(
                "\(summary.passed ? "PASSED" : "FAILED"): \(summary.faults) faults, \(summary.violations) violations, "
                    + "\(summary.lostMessages) lost and \(summary.duplicateMessages) duplicated messages, "
                    + "\(summary.reconnected) of \(summary.sessions) sessions reconnected (seed \(seed))")
        }
        emit(summary.jsonLine)
        if !summary.passed { throw ExitCode(1) }
    }
}
