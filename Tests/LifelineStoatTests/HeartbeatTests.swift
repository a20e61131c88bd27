import Testing

@testable import LifelineStoat

/// The socket's timers as a pure machine, driven with explicit times (seconds on the session's clock).
@Suite("The heartbeat machine")
struct HeartbeatTests {
    static func timing(interval: Double = 30, pong: Double = 10) -> Heartbeat.Timing {
        Heartbeat.Timing(
            heartbeatInterval: .seconds(interval), pongTimeout: .seconds(pong), connectTimeout: .seconds(10),
            readyTimeout: .seconds(30))
    }

    /// A machine whose socket opened at 0 and got `Authenticated` and `Ready` at once.
    static func connected(_ timing: Heartbeat.Timing) -> Heartbeat {
        var heartbeat = Heartbeat(startedAt: .zero, timing: timing)
        _ = heartbeat.socketOpened(at: .zero)
        _ = heartbeat.messageReceived(at: .zero)
        _ = heartbeat.authenticated(at: .zero)
        _ = heartbeat.readyReceived(at: .zero)
        return heartbeat
    }

    @Test("the connect timeout fails a socket that says nothing; a first message meets it")
    func connectTimeout() {
        var silent = Heartbeat(startedAt: .zero, timing: Self.timing())
        #expect(silent.deadline == .seconds(10))
        #expect(
            silent.deadlineReached(at: .seconds(10))
                == .fail(.init(code: .connectTimeout, message: "no message within 10.0 seconds")))
        #expect(silent.deadlineReached(at: .seconds(11)) == .none, "a failed machine answers nothing more")

        var speaking = Heartbeat(startedAt: .zero, timing: Self.timing())
        _ = speaking.socketOpened(at: .zero)
        #expect(speaking.messageReceived(at: .seconds(1)) == .wake(at: .seconds(30)))
    }

    @Test("Ready is due within its timeout after Authenticated")
    func readyTimeout() {
        var heartbeat = Heartbeat(startedAt: .zero, timing: Self.timing(interval: 60))
        _ = heartbeat.socketOpened(at: .zero)
        _ = heartbeat.messageReceived(at: .zero)
        #expect(heartbeat.authenticated(at: .seconds(1)) == .wake(at: .seconds(31)))
        #expect(
            heartbeat.deadlineReached(at: .seconds(31))
                == .fail(.init(code: .readyTimeout, message: "no Ready within 30.0 seconds")))
    }

    @Test("a Ping every interval; its Pong clears the deadline; a missing Pong fails after the Pong timeout")
    func pingPong() {
        var heartbeat = Self.connected(Self.timing())
        #expect(heartbeat.deadlineReached(at: .seconds(30)) == .sendPing(30_000, thenWakeAt: .seconds(40)))
        #expect(heartbeat.pongReceived(29_999, at: .seconds(31)) == .none, "another Ping's data does not count")
        #expect(heartbeat.pongReceived(30_000, at: .seconds(31)) == .wake(at: .seconds(60)))
        #expect(heartbeat.deadlineReached(at: .seconds(60)) == .sendPing(60_000, thenWakeAt: .seconds(70)))
        #expect(
            heartbeat.deadlineReached(at: .seconds(70))
                == .fail(.init(code: .heartbeatTimeout, message: "no Pong within 10.0 seconds")))
    }

    @Test("a Pong timeout longer than the interval still fails, counted from the first unanswered Ping")
    func pongTimeoutLongerThanInterval() {
        var heartbeat = Self.connected(Self.timing(interval: 0.4, pong: 2))
        #expect(heartbeat.deadlineReached(at: .milliseconds(400)) == .sendPing(400, thenWakeAt: .milliseconds(800)))
        // While that Ping is unanswered, no other is sent and its deadline does not move.
        var now = Duration.milliseconds(800)
        while now < .milliseconds(2_400) {
            let action = heartbeat.deadlineReached(at: now)
            guard case .wake(let next) = action, let next else {
                Issue.record("at \(now): \(action)")
                return
            }
            now = next
        }
        #expect(now == .milliseconds(2_400))
        #expect(
            heartbeat.deadlineReached(at: now)
                == .fail(.init(code: .heartbeatTimeout, message: "no Pong within 2.0 seconds")))
    }

    @Test("a late Pong to the outstanding Ping ends the wait, and the Pings go on")
    func latePong() {
        var heartbeat = Self.connected(Self.timing(interval: 0.4, pong: 2))
        _ = heartbeat.deadlineReached(at: .milliseconds(400))
        _ = heartbeat.deadlineReached(at: .milliseconds(800))
        #expect(heartbeat.pongReceived(400, at: .milliseconds(1_000)) == .none, "the next Ping is still due at 1.2 s")
        #expect(
            heartbeat.deadlineReached(at: .milliseconds(1_200)) == .sendPing(1_200, thenWakeAt: .milliseconds(1_600)))
    }
}
