import LifelineCore
import Testing

@testable import LifelineBenchmarks

/// The soak's audit of a session's log: stories of log lines, each with the violations the audit must find.
@Suite("The soak's audit of a session's log")
struct SoakAuditTests {
    private let policy = try! RetryPolicy(unit: .milliseconds(200), ceiling: .seconds(5))

    private func audit() -> TransitionAudit {
        TransitionAudit(retryPolicy: policy, confirmsInvalidSession: true)
    }

    private func step(
        _ from: SessionState, _ event: SessionEvent.Kind, _ to: SessionState, failures: Int, cause: String? = nil
    ) -> SessionLogEntry {
        .transition(from: from, event: event, to: to, failures: failures, cause: cause)
    }

    private func ready(_ generation: UInt64) -> SessionLogEntry {
        .report(generation: generation, milestone: "ready", end: nil, cause: nil)
    }

    private func dropped(_ generation: UInt64) -> SessionLogEntry {
        .report(generation: generation, milestone: "ended", end: "temporary", cause: "socketDropped")
    }

    /// Feeds the entries at the given times (milliseconds) and returns every violation.
    private func run(_ audit: inout TransitionAudit, _ entries: [(Int64, SessionLogEntry)]) -> [String] {
        entries.flatMap { audit.observe($0.1, at: .milliseconds($0.0)) }
    }

    /// A connection, a drop, a retry and a reconnection, as the session logs them.
    private var cleanStory: [(Int64, SessionLogEntry)] {
        [
            (0, step(.ready, .loginCached, .connecting, failures: 0)),
            (1, .report(generation: 1, milestone: "opened", end: nil, cause: nil)),
            (2, ready(1)),
            (2, step(.connecting, .socketConnected, .connected, failures: 0)),
            (100, dropped(1)),
            (100, step(.connected, .temporaryFailure, .disconnected, failures: 1, cause: "socketDropped")),
            (101, .returned(generation: 1)),
            (270, step(.disconnected, .retry, .reconnecting, failures: 1)),
            (280, ready(2)),
            (280, step(.reconnecting, .socketConnected, .connected, failures: 0)),
        ]
    }

    @Test("A clean story breaks no rule, and the audit follows the generation")
    func clean() {
        var audit = audit()
        #expect(run(&audit, cleanStory).isEmpty)
        #expect(audit.state == .connected)
        #expect(audit.generation == 2)
        #expect(audit.transitions == 5)
        #expect(audit.connectedSince == .milliseconds(280))
    }

    @Test("With a stability window, a connection shorter than it continues the count, a longer one starts at 1")
    func shortConnections() {
        func ending(at time: Int64, failures: Int) -> [(Int64, SessionLogEntry)] {
            cleanStory + [
                (time, dropped(2)),
                (time, step(.connected, .temporaryFailure, .disconnected, failures: failures, cause: "socketDropped")),
            ]
        }
        func violations(_ entries: [(Int64, SessionLogEntry)]) -> [String] {
            var audit = TransitionAudit(retryPolicy: policy, confirmsInvalidSession: true, stabilityWindow: .seconds(2))
            return run(&audit, entries)
        }
        // The second connection began at 280 ms, after one failure.
        #expect(violations(ending(at: 500, failures: 2)).isEmpty, "short: the count before it, plus one")
        #expect(violations(ending(at: 500, failures: 1)).count == 1)
        #expect(violations(ending(at: 3_000, failures: 1)).isEmpty, "long: from 1")
        #expect(violations(ending(at: 3_000, failures: 2)).count == 1)
        #expect(violations(ending(at: 2_300, failures: 1)).isEmpty, "near the window: either")
        #expect(violations(ending(at: 2_300, failures: 2)).isEmpty)
        var plain = audit()
        #expect(run(&plain, ending(at: 500, failures: 1)).isEmpty, "without a window, the specification's count")
    }

    @Test("A Ready from a superseded connection that is followed by SOCKET_CONNECTED is a violation")
    func staleReady() {
        var audit = audit()
        var story = cleanStory
        story[8] = (280, ready(1))
        let violations = run(&audit, story)
        #expect(violations.count == 1)
        #expect(violations.first?.contains("without a Ready from the live connection (generation 2)") == true)
        #expect(audit.staleReports == 1)
    }

    @Test("A stale report the machine ignores is counted, not blamed")
    func staleIgnored() {
        var audit = audit()
        var story = cleanStory
        story.insert((275, dropped(1)), at: 8)
        #expect(run(&audit, story).isEmpty)
        #expect(audit.staleReports == 1)
    }

    @Test("The machine's delivery deadline ends CONNECTED without a connection's end; from elsewhere it is a violation")
    func deliveryStalled() {
        var watched = audit()
        var story = Array(cleanStory.prefix(4))
        story.append((50, step(.connected, .temporaryFailure, .disconnected, failures: 1, cause: "deliveryStalled")))
        #expect(run(&watched, story).isEmpty)
        #expect(watched.state == .disconnected)
        var other = audit()
        let fromConnecting: [(Int64, SessionLogEntry)] = [
            (0, step(.ready, .loginCached, .connecting, failures: 0)),
            (5, step(.connecting, .temporaryFailure, .disconnected, failures: 1, cause: "deliveryStalled")),
        ]
        #expect(run(&other, fromConnecting).first?.contains("outside CONNECTED") == true)
    }

    @Test("A failure with no end from the live connection is a violation")
    func failureWithoutEnd() {
        var audit = audit()
        var story = Array(cleanStory.prefix(4))
        story.append((50, dropped(0)))
        story.append((50, step(.connected, .temporaryFailure, .disconnected, failures: 1, cause: "socketDropped")))
        let violations = run(&audit, story)
        #expect(violations.count == 1)
        #expect(violations.first?.contains("with no end reported by the live connection") == true)
    }

    @Test("A failure whose cause is not the live connection's end is a violation")
    func wrongCause() {
        var audit = audit()
        var story = cleanStory
        story[5] = (100, step(.connected, .temporaryFailure, .disconnected, failures: 1, cause: "heartbeatTimeout"))
        #expect(
            run(&audit, story) == [
                "CONNECTED -->|TEMPORARY_FAILURE| DISCONNECTED says heartbeatTimeout, the live connection ended with socketDropped"
            ])
    }

    @Test("A RETRY before 0.8 units after DISCONNECTED is a violation")
    func earlyRetry() {
        var audit = audit()
        var story = cleanStory
        story[7] = (250, step(.disconnected, .retry, .reconnecting, failures: 1))
        let violations = run(&audit, story)
        #expect(violations.count == 1)
        #expect(violations.first?.contains("before the formula's earliest 0.16 s") == true)
    }

    @Test(
        "A transition from a state the session was not in, or not in the table, or with a wrong count, is a violation")
    func table() {
        var audit = audit()
        let violations = run(
            &audit,
            [
                (0, step(.ready, .loginCached, .connecting, failures: 0)),
                (1, step(.connected, .retry, .reconnecting, failures: 0)),
                (2, step(.reconnecting, .deviceOnline, .connected, failures: 2)),
            ])
        #expect(violations.contains { $0.contains("taken from CONNECTED, but the session was in CONNECTING") })
        #expect(violations.contains { $0.contains("CONNECTED -->|RETRY| RECONNECTING is not an edge") })
        #expect(violations.contains { $0.contains("RECONNECTING -->|DEVICE_ONLINE| CONNECTED is not an edge") })
        #expect(violations.contains { $0.contains("with 2 failures where the rules give 0") })
    }

    @Test(
        "An InvalidSession while connecting is confirmed: its reports are stale, and the check's failure is explained")
    func confirmation() {
        var audit = audit()
        var story = Array(cleanStory.prefix(8))
        story += [
            (275, .report(generation: 2, milestone: "ended", end: "permanent", cause: "invalidSession")),
            (276, dropped(2)),
            (276, .returned(generation: 2)),
            (
                900,
                step(.reconnecting, .temporaryFailure, .disconnected, failures: 2, cause: "unconfirmedInvalidSession")
            ),
        ]
        #expect(run(&audit, story).isEmpty)
        #expect(audit.staleReports == 1)
        #expect(audit.isConfirming == false)
    }

    @Test("The network's transitions come only after the network said so")
    func network() {
        var audit = audit()
        var story = Array(cleanStory.prefix(4))
        story += [
            (50, .network(online: false)),
            (60, dropped(1)),
            (60, step(.connected, .temporaryFailure, .disconnected, failures: 1, cause: "socketDropped")),
            (60, step(.disconnected, .deviceOffline, .offline, failures: 1)),
            (70, step(.offline, .deviceOnline, .reconnecting, failures: 1)),
        ]
        #expect(run(&audit, story) == ["OFFLINE -->|DEVICE_ONLINE| RECONNECTING while the network last said offline"])
    }

    @Test("The journal records a session entering ERROR as a violation, with its cause, when it happens")
    func errorIsViolation() {
        let violations = ViolationLog(json: true, origin: .now)
        let journal = SessionJournal(index: 3, audit: audit(), violations: violations, origin: .now)
        for (_, entry) in cleanStory.prefix(4) { journal.take(entry) }
        #expect(violations.count == 0)
        journal.take(.report(generation: 1, milestone: "ended", end: "permanent", cause: "invalidSession"))
        journal.take(step(.connected, .temporaryFailure, .disconnected, failures: 1, cause: "socketDropped"))
        journal.take(step(.disconnected, .retry, .reconnecting, failures: 1))
        journal.take(.report(generation: 2, milestone: "ended", end: "permanent", cause: "invalidSession"))
        journal.take(step(.reconnecting, .permanentFailure, .error, failures: 1, cause: "invalidSession"))
        #expect(violations.byKind["error"] == 1)
    }

    @Test(
        "The journal counts a delivery stall on a connection the soak did not deafen, not one on an attempt it did, and quotes its last entries"
    )
    func undeafenedStalls() {
        let journal = SessionJournal(
            index: 3, audit: audit(), violations: ViolationLog(json: true, origin: .now), origin: .now)
        let stall = step(.connected, .temporaryFailure, .disconnected, failures: 1, cause: "deliveryStalled")
        // Deafened while attempt 1 was opening: its stall once CONNECTED is the soak's doing.
        journal.take(step(.ready, .loginCached, .connecting, failures: 0))
        journal.deafened.withLock { $0 = 1...1 }
        journal.take(ready(1))
        journal.take(step(.connecting, .socketConnected, .connected, failures: 0))
        #expect(journal.isDeafened(journal.reading.generation))
        journal.take(stall)
        #expect(journal.reading.deliveryStalls == 1)
        #expect(journal.reading.undeafenedStalls == 0)
        // Attempt 2 was opened after the deafening: its stall is counted.
        journal.take(step(.disconnected, .retry, .reconnecting, failures: 1))
        journal.take(ready(2))
        journal.take(step(.reconnecting, .socketConnected, .connected, failures: 0))
        #expect(!journal.isDeafened(journal.reading.generation))
        journal.take(stall)
        #expect(journal.reading.deliveryStalls == 2)
        #expect(journal.reading.undeafenedStalls == 1)
        #expect(journal.recentEntries.hasSuffix("CONNECTED -TEMPORARY_FAILURE-> DISCONNECTED (deliveryStalled)"))
    }

    @Test("The journal reads the session's own log lines, and nothing else")
    func logLines() {
        let transition = SessionJournal.entry(
            message: "transition",
            metadata: [
                "lifeline.from": "RECONNECTING", "lifeline.event": "TEMPORARY_FAILURE",
                "lifeline.state": "DISCONNECTED",
                "lifeline.failures": "2", "lifeline.cause": "connectTimeout",
            ])
        #expect(
            transition
                == .transition(
                    from: .reconnecting, event: .temporaryFailure, to: .disconnected, failures: 2,
                    cause: "connectTimeout"))
        let report = SessionJournal.entry(
            message: "connection report",
            metadata: [
                "lifeline.generation": "7", "lifeline.event": "ended", "lifeline.end": "temporary",
                "lifeline.cause": "x",
            ])
        #expect(report == .report(generation: 7, milestone: "ended", end: "temporary", cause: "x"))
        #expect(
            SessionJournal.entry(message: "network changed", metadata: ["lifeline.network": "offline"])
                == .network(online: false))
        #expect(SessionJournal.entry(message: "a history could not be fetched", metadata: [:]) == nil)
    }
}
