import LifelineStoatStore
public import LifelineTerminal

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The screens of `lifeline chat`: pure functions of a ``ChatState`` and a size to a `Grid`.
///
/// The screen follows the session's presentation: the login (READY), a loading screen (LOGGING_IN, DISPOSE), the
/// username selection (ONBOARDING), the permanent error (ERROR), and the client (the five logged-in states), whose
/// first row is the status line naming the state. Below ``ClientLayout/minimum`` the screen says it is too small.
public enum ChatScreen {
    /// The frame for a state at a size.
    public static func render(_ state: ChatState, size: TerminalSize) -> Grid {
        var state = state
        state.size = size
        var grid = Grid(size: size)
        guard size.columns >= ClientLayout.minimum.columns, size.rows >= ClientLayout.minimum.rows else {
            drawTooSmall(&grid)
            return grid
        }
        switch state.models.session.presentation.screen {
        case .login: LoginScreen.draw(state, into: &grid)
        case .loading: drawLoading(state, into: &grid)
        case .usernameSelection: drawOnboarding(state, into: &grid)
        case .permanentError(let error): drawError(error, state: state, into: &grid)
        case .client: ClientScreen.draw(state, into: &grid)
        }
        return grid
    }

    /// Where the terminal's cursor stands in the frame (the focused field's caret), or `nil` to hide it.
    public static func cursor(_ state: ChatState, size: TerminalSize) -> (row: Int, column: Int)? {
        var state = state
        state.size = size
        guard size.columns >= ClientLayout.minimum.columns, size.rows >= ClientLayout.minimum.rows else { return nil }
        switch state.models.session.presentation.screen {
        case .login: return LoginScreen.cursor(state)
        case .usernameSelection:
            let row = size.rows / 2
            return (row, min(size.columns - 1, 4 + 12 + caretColumn(state.username)))
        case .client: return ClientScreen.cursor(state)
        case .loading, .permanentError: return nil
        }
    }

    /// When the frame's text changes next without an event (a countdown's next second), or `nil`: the program sets
    /// no timer otherwise, so an idle client costs no CPU.
    public static func nextChange(_ state: ChatState) -> Date? {
        var deadlines: [Date] = []
        if state.models.session.state == .disconnected, let retry = state.models.retryDate, retry > state.now {
            deadlines.append(retry)
        }
        if let channel = state.channel {
            if let until = channel.slowmodeUntil, until > state.now { deadlines.append(until) }
            if let until = channel.timeoutUntil, until > state.now { deadlines.append(until) }
        }
        // Each countdown shows whole seconds: its text changes at the next whole second before it.
        return deadlines.map { deadline in
            let left = deadline.timeIntervalSince(state.now)
            let fraction = left - left.rounded(.down)
            return state.now.addingTimeInterval(fraction > 0 ? fraction : min(1, left))
        }.min()
    }

    /// Seconds left until `date`, rounded up (a countdown never shows 0 before its end).
    static func secondsLeft(until date: Date, now: Date) -> Int {
        max(0, Int(date.timeIntervalSince(now).rounded(.up)))
    }

    static func caretColumn(_ composer: Composer) -> Int {
        let before = composer.characters[..<composer.cursor]
        let line = before.split(separator: "\n", omittingEmptySubsequences: false).last ?? []
        return TextLayout.columns(of: String(line))
    }

    // MARK: - Too small, loading, onboarding, error

    private static func drawTooSmall(_ grid: inout Grid) {
        let size = grid.size
        let minimum = ClientLayout.minimum
        let lines = [
            "Too small: \(size.columns)×\(size.rows).", "Lifeline needs \(minimum.columns)×\(minimum.rows).",
            "Ctrl-Q quits.",
        ]
        for (offset, line) in lines.enumerated() {
            centered(line, row: size.rows / 2 - 1 + offset, into: &grid, style: offset == 0 ? ChatStyle.bold : .plain)
        }
    }

    private static func drawLoading(_ state: ChatState, into grid: inout Grid) {
        let session = state.models.session
        title(session.state == .dispose ? "Signing out" : "Signing in", state: state, into: &grid)
        let text = session.state == .dispose ? "Signing out…" : "Signing in…"
        centered(text, row: grid.size.rows / 2 - 1, into: &grid, style: ChatStyle.bold)
        let detail =
            session.state == .dispose
            ? "Ending this session and starting a fresh client."
            : "Checking the account, then loading the chats."
        centered(detail, row: grid.size.rows / 2 + 1, into: &grid, style: ChatStyle.dim)
        centered("(\(session.state.rawValue))", row: grid.size.rows / 2 + 2, into: &grid, style: ChatStyle.dim)
    }

    private static func drawOnboarding(_ state: ChatState, into grid: inout Grid) {
        title("Pick a username", state: state, into: &grid)
        let row = grid.size.rows / 2
        grid.write("This account has no user yet: pick the name others will see.", row: row - 2, column: 4)
        grid.write("Username", row: row, column: 4, style: ChatStyle.bold)
        field(state.username.text, row: row, column: 16, width: 30, focused: true, into: &grid)
        if let error = state.models.session.lastError, error.code == .onboardingFailed {
            grid.write(
                TextLayout.truncate(error.message, width: grid.size.columns - 8), row: row + 2, column: 4,
                style: ChatStyle.error)
        }
        footer("Enter: continue · Esc: cancel and sign out · Ctrl-Q: quit", into: &grid)
    }

    private static func drawError(_ error: PermanentError, state: ChatState, into grid: inout Grid) {
        title("Signed out", state: state, into: &grid)
        let row = grid.size.rows / 2 - 2
        let width = grid.size.columns - 8
        var line = row
        for text in TextLayout.wrap(error.message, width: width) {
            grid.write(text, row: line, column: 4, style: ChatStyle.bold)
            line += 1
        }
        line += 1
        grid.write(
            TextLayout.truncate("Reason: \(error.reason) (\(error.failure.message))", width: width), row: line,
            column: 4,
            style: ChatStyle.dim)
        if error.isCheckingAccount {
            grid.write("Checking your account…", row: line + 1, column: 4, style: ChatStyle.dim)
        }
        footer("Enter: dismiss and return to the login · Ctrl-Q: quit", into: &grid)
    }

    // MARK: - Shared pieces

    /// The first row of a screen outside the client: its title, and where the server is.
    static func title(_ text: String, state: ChatState, into grid: inout Grid) {
        let style = TextStyle(foreground: .ansi(15), background: .ansi(4), attributes: .bold)
        grid.fill(row: 0, columns: 0..<grid.size.columns, style: style)
        grid.write(" Lifeline · \(text)", row: 0, column: 0, style: style)
        let right = serverLabel(state)
        let width = TextLayout.columns(of: right)
        if width + 20 < grid.size.columns {
            grid.write(right, row: 0, column: grid.size.columns - width - 1, style: style)
        }
    }

    /// Where the server is, as the title and status lines say it.
    static func serverLabel(_ state: ChatState) -> String {
        switch state.mode {
        case .demo: "local demo world"
        case .server: state.models.signIn.server
        }
    }

    static func footer(_ text: String, into grid: inout Grid) {
        grid.write(
            TextLayout.truncate(text, width: grid.size.columns - 2), row: grid.size.rows - 1, column: 1,
            style: ChatStyle.dim)
    }

    static func centered(_ text: String, row: Int, into grid: inout Grid, style: TextStyle = .plain) {
        let shown = TextLayout.truncate(text, width: grid.size.columns)
        let column = max(0, (grid.size.columns - TextLayout.columns(of: shown)) / 2)
        grid.write(shown, row: row, column: column, style: style)
    }

    /// A text field: its text (scrolled to its end when too long) on an underline.
    static func field(
        _ text: String, row: Int, column: Int, width: Int, focused: Bool, into grid: inout Grid
    ) {
        let style = focused ? ChatStyle.focusedField : ChatStyle.field
        grid.fill(row: row, columns: column..<(column + width), style: style)
        var shown = VisibleText.sanitized(text.replacing("\n", with: " "))
        while TextLayout.columns(of: shown) > width - 1, !shown.isEmpty { shown.removeFirst() }
        grid.write(shown, row: row, column: column, style: style, limit: width)
    }

    /// The lines under the timeline: who types, the reply being written, the countdowns, the last error.
    static func notes(_ state: ChatState) -> [[Span]] {
        guard let channel = state.channel else { return [] }
        var notes: [[Span]] = []
        if !channel.typing.isEmpty {
            let names = channel.typing
            let text =
                names.count == 1
                ? "\(names[0]) is typing…"
                : names.count <= 3
                    ? "\(names.dropLast().joined(separator: ", ")) and \(names.last ?? "") are typing…"
                    : "several people are typing…"
            notes.append([Span(text, ChatStyle.dim)])
        }
        if let reply = state.replyTo {
            let quoted = channel.messages.first { $0.id == reply }
            let name = quoted.flatMap { channel.authorNames[$0.id] } ?? quoted?.author ?? "a message"
            notes.append([
                Span("↳ replying to \(name): ", ChatStyle.bold), Span(quoted?.content ?? ""),
                Span("  (Esc cancels)", ChatStyle.dim),
            ])
        }
        notes += actionNotes(state, channel: channel)
        if let until = channel.timeoutUntil, until > state.now {
            let seconds = secondsLeft(until: until, now: state.now)
            notes.append([
                Span("Timed out in this server: you can read, not send, for \(seconds) s more.", ChatStyle.error)
            ])
        }
        if let until = channel.slowmodeUntil, until > state.now {
            let seconds = secondsLeft(until: until, now: state.now)
            notes.append([
                Span("Slowmode: the next message goes in \(seconds) s (it waits in the outbox).", ChatStyle.gap)
            ])
        }
        if let error = channel.lastError {
            notes.append([Span("⚠ \(error)", ChatStyle.error)])
        }
        return notes
    }

    /// The note of an action on the selected message: the deletion to confirm, the edit or the reaction being
    /// written, or the keys that act on a selected message.
    static func actionNotes(_ state: ChatState, channel: ChannelView) -> [[Span]] {
        if state.confirmingDeletion != nil {
            return [
                [
                    Span("Delete the selected message? ", ChatStyle.error), Span("Enter", ChatStyle.key),
                    Span(" deletes it · "), Span("Esc", ChatStyle.key), Span(" keeps it"),
                ]
            ]
        }
        switch state.compose {
        case .edit:
            return [
                [
                    Span("✎ Editing your message: ", ChatStyle.bold), Span("Enter", ChatStyle.key),
                    Span(" saves it · "),
                    Span("Esc", ChatStyle.key), Span(" cancels"),
                ]
            ]
        case .reaction(_, let remove):
            var line = [Span(remove ? "Take back your reaction: " : "React with: ", ChatStyle.bold)]
            for (index, emoji) in ChatReducer.reactionChoices(state).enumerated() {
                line.append(Span(" \(emoji) ", index == state.reactionPick ? ChatStyle.selected : .plain))
            }
            line.append(Span(" · Tab picks · or type one · Enter · Esc cancels", ChatStyle.dim))
            return [line]
        case .attach:
            return [
                [
                    Span("📎 Attach a file: ", ChatStyle.bold), Span("Enter", ChatStyle.key),
                    Span(" sends it with your draft · "), Span("Esc", ChatStyle.key), Span(" gives the draft back"),
                ]
            ]
        case .message:
            guard let selection = state.selection, selection.hasPrefix("m:"),
                let message = channel.messages.first(where: { "m:\($0.id)" == selection })
            else { return [] }
            var keys: [(String, String)] = []
            if message.author == state.models.currentUserID { keys.append(("Alt-E", "edit")) }
            keys += [("Alt-D", "delete"), ("Alt-A", "react")]
            if message.reactions?.values.contains(where: { $0.contains(state.models.currentUserID ?? "") }) == true {
                keys.append(("Alt-U", "unreact"))
            }
            keys += [("Alt-R", "reply"), ("Esc", "unselect")]
            var line = [Span("Selected: ", ChatStyle.bold)]
            for (number, (key, action)) in keys.enumerated() {
                line += [Span(key, ChatStyle.key), Span(" \(action)\(number < keys.count - 1 ? " · " : "")")]
            }
            return [line]
        }
    }
}
