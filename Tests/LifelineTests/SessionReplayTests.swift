import LifelineCore
import LifelineTesting
import Testing

@testable import Lifeline

@Suite("Replay of significant events in the session", .hangBound)
struct SessionReplayTests {
    let lobby = SignificantEvent(.subscribe, "lobby")
    let games = SignificantEvent(.subscribe, "games")

    /// Waits until the session's record holds exactly `events`.
    func recorded(_ harness: Harness, _ events: [SignificantEvent]) async {
        await harness.recorder.next { $0.significantEvents == events }
    }

    @Test("three reconnects in a row send each subscription exactly once per connection, in order")
    func threeReconnects() async throws {
        let harness = Harness(polling: false)
        var connection = await harness.connected()
        await harness.session.subscribe(server: "lobby")
        await harness.session.subscribe(server: "games")
        await recorded(harness, [lobby, games])
        #expect(connection.played == [lobby, games])
        for _ in 1...3 {
            await connection.end(.temporary(.socketDropped))
            connection = await harness.retry()
            #expect(connection.played.isEmpty, "nothing before its prerequisites: connected and authenticated")
            await connection.ready()
            let current = connection
            await harness.recorder.next { _ in current.played.count == 2 }
            #expect(connection.played == [lobby, games])
        }
        #expect(harness.session.snapshot.significantEvents == [lobby, games])
        await harness.stop()
    }

    @Test("an unsubscribe while disconnected is not replayed")
    func unsubscribeWhileDisconnected() async throws {
        let harness = Harness(polling: false)
        var connection = await harness.connected()
        await harness.session.subscribe(server: "lobby")
        await harness.session.subscribe(server: "games")
        await recorded(harness, [lobby, games])
        await connection.end(.temporary(.socketDropped))
        await harness.session.unsubscribe(server: "lobby")
        connection = await harness.retry()
        await connection.ready()
        let current = connection
        await harness.recorder.next { _ in current.played.count == 1 }
        #expect(connection.played == [games])
        await harness.stop()
    }

    @Test("a play that hangs times out, is retried up to the limit, and its failure is shown")
    func timeoutSurfaced() async throws {
        let harness = Harness(polling: false)
        harness.connections.hangPlays(of: [lobby])
        let connection = await harness.connected()
        await harness.session.subscribe(server: "lobby")
        await harness.session.subscribe(server: "games")
        for attempt in 1...3 {
            let timeout = await harness.clock.nextSleep()
            #expect(harness.clock.now.duration(to: timeout) == .seconds(10))
            harness.clock.advance(to: timeout)
            guard attempt < 3 else { break }
            // The retry backs off: 1 s, then 2 s.
            let retry = await harness.clock.nextSleep()
            #expect(harness.clock.now.duration(to: retry) == .seconds(attempt == 1 ? 1 : 2))
            harness.clock.advance(to: retry)
        }
        let shown = await harness.recorder.next { $0.replayFailures == [lobby] && $0.significantEvents.contains(games) }
        #expect(shown?.significantEvents == [lobby, games], "the queue moved on; the failed one is kept for later")
        #expect(connection.attempts == [lobby, lobby, lobby, games])
        await harness.stop()
    }

    @Test("a new subscription made while a replay runs is played once")
    func newDuringReplay() async throws {
        let harness = Harness(polling: false)
        var connection = await harness.connected()
        await harness.session.subscribe(server: "lobby")
        await recorded(harness, [lobby])
        await connection.end(.temporary(.socketDropped))
        connection = await harness.retry()
        await connection.ready()
        await harness.session.subscribe(server: "games")
        await recorded(harness, [lobby, games])
        #expect(connection.played == [lobby, games])
        await harness.stop()
    }

    @Test("a replay the connection answers at once plays each event once, in order, with no timeout armed")
    func answeredAtOnceReplay() async throws {
        let harness = Harness(polling: false)
        harness.connections.answersPlaysAtOnce = true
        var connection = await harness.connected()
        let events = (0..<40).map { SignificantEvent(.subscribe, "server-\($0)") }
        for event in events { await harness.session.subscribe(server: event.target) }
        await recorded(harness, events)
        #expect(connection.played == events)
        for _ in 1...2 {
            await connection.end(.temporary(.socketDropped))
            connection = await harness.retry()
            let sleeps = harness.session.workload.timer.sleepsArmed
            await connection.ready()
            let current = connection
            await harness.recorder.next { _ in current.played.count == events.count }
            #expect(connection.played == events, "each once, in the record's order")
            #expect(connection.attempts == events)
            #expect(harness.session.workload.timer.sleepsArmed == sleeps, "no play's timeout was armed")
            #expect(harness.session.workload.timer.count == 0)
        }
        #expect(harness.session.snapshot.significantEvents == events)
        await harness.stop()
    }

    @Test("a play the connection fails at once is retried after its backoff, holding the queue, then shown")
    func failedAtOnceRetried() async throws {
        let harness = Harness(polling: false)
        harness.connections.answersPlaysAtOnce = true
        harness.connections.failPlays(of: [lobby])
        let connection = await harness.connected()
        await harness.session.subscribe(server: "lobby")
        await harness.session.subscribe(server: "games")
        for attempt in 1...2 {
            let retry = await harness.clock.nextSleep()
            #expect(harness.clock.now.duration(to: retry) == .seconds(attempt == 1 ? 1 : 2), "no timeout: a backoff")
            #expect(connection.attempts == Array(repeating: lobby, count: attempt), "games waits behind lobby")
            harness.clock.advance(to: retry)
        }
        let shown = await harness.recorder.next { $0.replayFailures == [lobby] && $0.significantEvents.contains(games) }
        #expect(shown?.significantEvents == [lobby, games])
        #expect(connection.attempts == [lobby, lobby, lobby, games])
        #expect(connection.played == [games])
        await harness.stop()
    }

    @Test("a play the connection cannot answer at once is awaited, with its timeout, and the queue waits for it")
    func pendingAmongAnsweredAtOnce() async throws {
        let harness = Harness(polling: false)
        harness.connections.answersPlaysAtOnce = true
        harness.connections.hangPlays(of: [lobby])
        let connection = await harness.connected()
        await harness.session.subscribe(server: "games")
        await recorded(harness, [games])
        await harness.session.subscribe(server: "lobby")
        await harness.session.subscribe(server: "chess")
        let timeout = await harness.clock.nextSleep()
        #expect(harness.clock.now.duration(to: timeout) == .seconds(10))
        #expect(harness.session.runningClientTasks == 2, "the connection and the awaited play")
        #expect(connection.attempts == [games, lobby])
        harness.clock.advance(to: timeout)
        let retry = await harness.clock.nextSleep()
        #expect(harness.clock.now.duration(to: retry) == .seconds(1))
        #expect(connection.attempts == [games, lobby], "chess waits behind lobby's retry")
        await harness.stop()
    }

    @Test("logging out forgets the record")
    func logoutForgets() async throws {
        let harness = Harness(polling: false)
        _ = await harness.connected()
        await harness.session.subscribe(server: "lobby")
        await recorded(harness, [lobby])
        await harness.session.logOut()
        let ready = await harness.recorder.next(.ready)
        #expect(ready?.significantEvents == [])
        let connection = await harness.connected()
        #expect(connection.played.isEmpty)
        await harness.stop()
    }
}
