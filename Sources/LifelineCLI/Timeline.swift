import Foundation
import Lifeline
import LifelineCLIOutput
import LifelineCore
import Synchronization

/// Prints a session's snapshots as a timeline: readable lines (with colour on a terminal), or one JSON
/// object per line (`--json`). Shared by `lifeline demo` and `lifeline connect`.
///
/// JSON lines (keys sorted):
/// - `{"type":"transition","time":S,"from":…,"event":…,"to":…,"failures":N,"banner":…,"retry_in":S,
///   "cause":{"code":…,"message":…}}` for every transition, with the specification's names; `banner`,
///   `retry_in` (seconds) and `cause` (for TEMPORARY_FAILURE and PERMANENT_FAILURE: the typed failure, e.g.
///   `{"code":"heartbeatTimeout","message":"no Pong within 10.0 seconds"}`) only when there is one.
/// - `{"type":"error","reason":…,"message":…}` when ERROR's message is known or tailored (`suspended`…).
/// - `{"type":"notice","text":…}` after an external logout (with `"standing":…` once the account's
///   standing tailors it); `{"type":"login_failed","code":…,"message":…,"support_url":…,"reason":…}` for a
///   refused login (`reason`: `disabled`, `suspended`, `banned`, `deleted`, `removedAsSpam` for a `Disabled`
///   login whose account flags were read); `{"type":"alert","text":…}` for an outage alert.
/// - `{"type":"replay_failed","events":[…]}` when significant events could not be restored;
///   `{"type":"replay_failed","reason":"unsupported","events":[…]}` once when the server refused their kind
///   (Stoat's new events server takes no `Subscribe`), so that they are no longer played.
///
/// Text the server controls (names, messages, alerts, error details) is made terminal-safe in human output
/// (``terminalSafe(_:)``): a server cannot move the cursor, recolour or retitle the terminal.
///
/// Safe from any number of tasks (the demo and `connect` print commands from one task and snapshots from
/// another): every line is decided and written under one lock, so lines never interleave.
final class Timeline: Sendable {
    private struct State {
        var previous: SessionSnapshot?
        var transitions: [SessionTransition] = []
    }

    private let json: Bool
    private let colour: Bool
    private let state = Mutex(State())

    /// Every transition printed, for the demo's table of edges.
    var transitions: [SessionTransition] { state.withLock { $0.transitions } }

    init(json: Bool, colour: Bool = isatty(STDOUT_FILENO) == 1) {
        self.json = json
        self.colour = colour && !json
    }

    /// Prints what changed from the previous snapshot.
    func show(_ snapshot: SessionSnapshot) {
        state.withLock { state in
            show(snapshot, previous: state.previous)
            state.transitions += snapshot.transitions
            state.previous = snapshot
        }
    }

    private func show(_ snapshot: SessionSnapshot, previous: SessionSnapshot?) {
        for (index, transition) in snapshot.transitions.enumerated() {
            printTransition(transition, snapshot: snapshot, isLast: index == snapshot.transitions.count - 1)
        }
        if case .permanentError(let error) = snapshot.presentation.screen,
            error.message != previousErrorMessage(previous)
        {
            line(
                ["type": .string("error"), "reason": .string(error.reason), "message": .string(error.message)],
                human: paint("  ERROR  \(terminalSafe(error.message)) (\(terminalSafe(error.reason)))", .red))
        }
        if snapshot.presentation.notice != previous?.presentation.notice, let notice = snapshot.presentation.notice {
            switch notice {
            case .loggedOut:
                line(
                    ["type": .string("notice"), "text": .string(notice.text)],
                    human: paint("  notice: \(notice.text)", .yellow))
            case .accountStanding(let standing):
                line(
                    ["type": .string("notice"), "text": .string(notice.text), "standing": .string(standing.rawValue)],
                    human: paint("  notice: \(notice.text)", .yellow))
            case .loginFailed(let failure):
                var object: [String: JSONLine.Value] = [
                    "type": .string("login_failed"), "code": .string(failure.code.rawValue),
                    "message": .string(failure.message),
                ]
                if let link = failure.supportURL { object["support_url"] = .string(link) }
                // A `Disabled` login once the account's flags were read: the `error` line's reasons.
                if let standing = failure.standing { object["reason"] = .string(standing.rawValue) }
                line(
                    object,
                    human: paint(
                        "  login failed: \(terminalSafe(failure.message))"
                            + (failure.supportURL.map { " — see \(terminalSafe($0))" } ?? ""), .red))
            }
        }
        if snapshot.presentation.outageAlert != previous?.presentation.outageAlert,
            let alert = snapshot.presentation.outageAlert
        {
            line(
                ["type": .string("alert"), "text": .string(alert.text)],
                human: paint("  outage alert: \(terminalSafe(alert.text))", .yellow))
        }
        if snapshot.unsupportedEvents != previous?.unsupportedEvents ?? [], !snapshot.unsupportedEvents.isEmpty {
            let events = snapshot.unsupportedEvents.map(\.description)
            line(
                ["type": .string("replay_failed"), "reason": .string("unsupported"), "events": .strings(events)],
                human: paint(
                    "  not supported by this server, not restored: \(terminalSafe(events.joined(separator: ", ")))",
                    .yellow))
        }
        if snapshot.replayFailures != previous?.replayFailures ?? [], !snapshot.replayFailures.isEmpty {
            line(
                ["type": .string("replay_failed"), "events": .strings(snapshot.replayFailures.map(\.description))],
                human: paint(
                    "  could not restore: \(terminalSafe(snapshot.replayFailures.map(\.description).joined(separator: ", ")))",
                    .red))
        }
    }

    /// Reports a command from standard input: `{"type":"command","command":…,"accepted":…}`.
    func command(_ line: String, accepted: Bool, reason: String?) {
        var object: [String: JSONLine.Value] = [
            "type": .string("command"), "command": .string(line), "accepted": .bool(accepted),
        ]
        if let reason { object["reason"] = .string(reason) }
        state.withLock { _ in
            self.line(
                object,
                human: paint(
                    "  > \(terminalSafe(line))" + (accepted ? "" : " — \(terminalSafe(reason ?? "refused"))"),
                    accepted ? .blue : .red))
        }
    }

    /// Prints a line about the account rather than the session (the first screen, a message, a history,
    /// the sign-in's outcome), between the session's lines. `human` must already be terminal-safe.
    func record(_ object: [String: JSONLine.Value], human: String) {
        state.withLock { _ in line(object, human: human) }
    }

    /// Prints a line of commentary (the demo's narration); nothing in JSON mode.
    func say(_ text: String) {
        guard !json else { return }
        state.withLock { _ in emit(paint(text, .bold)) }
    }

    private func previousErrorMessage(_ previous: SessionSnapshot?) -> String? {
        if case .permanentError(let error)? = previous?.presentation.screen { return error.message }
        return nil
    }

    private func printTransition(_ transition: SessionTransition, snapshot: SessionSnapshot, isLast: Bool) {
        let time = snapshot.time.secondsValue
        var object: [String: JSONLine.Value] = [
            "type": .string("transition"), "time": .number((time * 1000).rounded() / 1000),
            "from": .string(transition.from.rawValue), "event": .string(transition.event.rawValue),
            "to": .string(transition.to.rawValue), "failures": .integer(transition.failures),
        ]
        var human =
            String(format: "%8.3fs  ", time) + "\(transition.from.rawValue) ─\(transition.event.rawValue)→ "
            + paint(transition.to.rawValue, colourFor(transition.to))
        if transition.failures > 0 { human += "  failures \(transition.failures)" }
        if let cause = transition.cause {
            object["cause"] = Self.causeObject(cause)
            human += "  (\(terminalSafe(cause.description)))"
        }
        if isLast {
            if let banner = snapshot.presentation.banner {
                object["banner"] = .string(banner.text)
                human += "  [\(banner.text)]"
            }
            if let retry = snapshot.nextRetry {
                let wait = (retry - snapshot.time).secondsValue
                object["retry_in"] = .number((wait * 1000).rounded() / 1000)
                human += String(format: "  retry in %.2fs", wait)
            }
        }
        line(object, human: human)
    }

    /// A transition's `cause`: the failure's code by its stable name (the typed code's `rawValue`), and its
    /// message.
    static func causeObject(_ cause: SessionFailure) -> JSONLine.Value {
        .object(["code": .string(cause.code.rawValue), "message": .string(cause.message)])
    }

    private func line(_ object: [String: JSONLine.Value], human: String) {
        // On a terminal, clear the spinner's line first.
        emit(json ? JSONLine.encode(object) : colour ? "\r\u{1B}[2K" + human : human)
    }

    enum Colour: String {
        case red = "31", green = "32", yellow = "33", blue = "34", bold = "1"
    }

    func paint(_ text: String, _ colour: Colour) -> String {
        self.colour ? "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m" : text
    }

    private func colourFor(_ state: SessionState) -> Colour {
        switch state {
        case .connected: .green
        case .error, .offline: .red
        case .disconnected, .reconnecting, .connecting: .yellow
        default: .blue
        }
    }
}
