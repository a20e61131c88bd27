import LifelineStoatStore
import LifelineTerminal

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The client's screen (the five logged-in states): the status line, the outage alert, the chat list, the open
/// channel and the composer, the member list, the overlays.
enum ClientScreen {
    static func draw(_ state: ChatState, into grid: inout Grid) {
        let layout = ClientLayout(state)
        drawStatus(state, into: &grid)
        drawAlert(state, layout: layout, into: &grid)
        drawChatList(state, layout: layout, into: &grid)
        drawSeparators(layout, into: &grid)
        drawChannel(state, layout: layout, into: &grid)
        if let members = layout.members {
            drawMembers(state, columns: members, rows: layout.list.rows, into: &grid)
        }
        switch state.overlay {
        case .help: drawBox(title: "Keys", lines: helpLines(state), into: &grid)
        case .lastFailure: drawBox(title: "Last failure", lines: failureLines(state), into: &grid)
        case nil: break
        }
    }

    static func cursor(_ state: ChatState) -> (row: Int, column: Int)? {
        guard state.overlay == nil, state.channel != nil else { return nil }
        let layout = ClientLayout(state)
        let width = max(1, ClientLayout.composerWidth(state))
        let before = String(state.composer.characters[..<state.composer.cursor])
        let lines = TextLayout.wrap(before, width: width)
        let allLines = TextLayout.wrap(state.composer.text, width: width)
        let shownFrom = max(0, allLines.count - layout.composerRows.count)
        let line = max(0, lines.count - 1) - shownFrom
        let column = TextLayout.columns(of: lines.last ?? "")
        guard line >= 0 else { return nil }
        return (
            layout.composerRows.lowerBound + line,
            min(
                layout.channelColumns.upperBound - 1,
                layout.channelColumns.lowerBound + composerPrompt(state).count + column)
        )
    }

    // MARK: - The status line

    /// The status line's text: the state's name (`Connected`, or the presentation's banner with the retry
    /// countdown), and on the right the keys that act on it.
    static func statusText(_ state: ChatState) -> (left: String, right: String, style: TextStyle) {
        let session = state.models.session
        var left: String
        var style: TextStyle
        var keys: [String] = []
        switch session.state {
        case .connected:
            left = "● Connected"
            style = ChatStyle.statusConnected
        default:
            let banner = session.presentation.banner?.text ?? session.state.rawValue
            left = (session.state == .disconnected || session.state == .offline ? "○ " : "◌ ") + banner
            style =
                session.state == .connecting || session.state == .reconnecting
                ? ChatStyle.statusWaiting : ChatStyle.statusDown
            if session.state == .disconnected, let retry = state.models.retryDate {
                left += " — retry in \(ChatScreen.secondsLeft(until: retry, now: state.now)) s"
            }
            if session.state == .disconnected || session.state == .offline { keys.append("F5 reconnect now") }
        }
        if session.isConfirmingSession { left += " · checking the session" }
        if session.failures > 0, session.state != .connected { left += " · failures: \(session.failures)" }
        if state.models.lastFailure != nil { keys.append("F2 why") }
        keys.append("F1 help")
        if let name = state.models.currentUserName { keys.append(name) }
        keys.append(ChatScreen.serverLabel(state))
        return (left, keys.joined(separator: " · "), style)
    }

    /// The rules between the chat list, the channel and the member list.
    static func drawSeparators(_ layout: ClientLayout, into grid: inout Grid) {
        for row in layout.list.rows {
            grid.write("│", row: row, column: layout.list.columns.upperBound, style: ChatStyle.separator)
        }
        if let members = layout.members {
            for row in layout.list.rows {
                grid.write("│", row: row, column: members.lowerBound - 1, style: ChatStyle.separator)
            }
        }
    }

    /// The outage alert's text, when one shows.
    static func alertText(_ state: ChatState, layout: ClientLayout) -> String? {
        guard layout.alertRow != nil, let alert = state.models.session.presentation.outageAlert else { return nil }
        let links = alert.actions.map { " · \($0.text): \($0.href)" }.joined()
        return " ⚠ \(alert.text)\(links)"
    }

    static func drawAlert(_ state: ChatState, layout: ClientLayout, into grid: inout Grid) {
        guard let row = layout.alertRow, let text = alertText(state, layout: layout) else { return }
        grid.fill(row: row, columns: 0..<grid.size.columns, style: ChatStyle.alert)
        grid.write(
            TextLayout.truncate(text, width: grid.size.columns), row: row, column: 0, style: ChatStyle.alert)
    }

    static func drawStatus(_ state: ChatState, into grid: inout Grid) {
        let (left, right, style) = statusText(state)
        grid.fill(row: 0, columns: 0..<grid.size.columns, style: style)
        var emphasis = style
        emphasis.attributes.insert(.bold)
        let used = grid.write(" " + left, row: 0, column: 0, style: emphasis)
        let room = grid.size.columns - used - 3
        guard room > 4 else { return }
        let shown = TextLayout.truncate(right, width: room)
        grid.write(shown, row: 0, column: grid.size.columns - TextLayout.columns(of: shown) - 1, style: style)
    }

    // MARK: - The chat list

    /// The chats the list shows, top to bottom, and the row each is on.
    static func listEntries(_ state: ChatState, layout: ClientLayout) -> [(row: Int, chat: Chat)] {
        let chats = state.models.chats
        let rows = layout.list.rows.count - 1
        guard rows > 0 else { return [] }
        let open = state.openChannel.flatMap { id in chats.firstIndex { $0.id == id } } ?? 0
        let first = max(0, min(open - rows / 2, chats.count - rows))
        return chats.dropFirst(first).prefix(rows).enumerated().map { offset, chat in
            (layout.list.rows.lowerBound + 1 + offset, chat)
        }
    }

    /// The chat list: its heading, then a row per chat (the unread mark, the name, the mention count), the server
    /// named on the first row of each run of its chats only.
    static func drawChatList(_ state: ChatState, layout: ClientLayout, into grid: inout Grid) {
        let columns = layout.list.columns
        let unread = state.models.chats.count { $0.isUnread }
        let heading = unread > 0 ? "Chats · \(unread) unread" : "Chats"
        grid.write(
            TextLayout.truncate(heading, width: columns.count - 1), row: layout.list.rows.lowerBound, column: 1,
            style: ChatStyle.dim)
        if state.models.chats.isEmpty {
            let text = state.models.session.state == .connected ? "No chats yet" : "Loading chats…"
            grid.write(text, row: layout.list.rows.lowerBound + 1, column: 1, style: ChatStyle.dim)
            return
        }
        // A run of chats of one server names the server once, on the run's first row: the rows of a run differ
        // only in their names, so a timeline scrolled beside them costs a few bytes to repair (Performance.md).
        var serverAbove: String?
        for (row, chat) in listEntries(state, layout: layout) {
            defer { serverAbove = chat.serverID }
            let isOpen = chat.id == state.openChannel
            let base = isOpen ? ChatStyle.openChat : chat.isUnread ? ChatStyle.unread : .plain
            if isOpen { grid.fill(row: row, columns: columns, style: base) }
            let mark = chat.isUnread || chat.mentionCount > 0 ? "●" : " "
            var used = grid.write(mark, row: row, column: 0, style: chat.mentionCount > 0 ? ChatStyle.mention : base)
            let badge = chat.mentionCount > 0 ? " \(chat.mentionCount)" : ""
            let room = columns.count - used - 1 - badge.count
            let prefix =
                switch chat.kind {
                case .textChannel, .voiceChannel: "#"
                case .directMessage: "@"
                default: ""
                }
            let name = TextLayout.truncate(prefix + chat.name, width: room)
            used += grid.write(name, row: row, column: used, style: base)
            let server = chat.serverID.flatMap { state.models.serverNames[$0] }
            if let server, chat.serverID != serverAbove, used + 3 < columns.count - badge.count {
                var dim = base
                dim.attributes.insert(.dim)
                grid.write(
                    TextLayout.truncate(" " + server, width: columns.count - used - badge.count - 1), row: row,
                    column: used, style: dim)
            }
            if !badge.isEmpty {
                grid.write(badge, row: row, column: columns.upperBound - badge.count, style: ChatStyle.mention)
            }
        }
    }

    // MARK: - The channel

    private static func drawChannel(_ state: ChatState, layout: ClientLayout, into grid: inout Grid) {
        drawHeader(state, layout: layout, into: &grid)
        if state.openChat != nil, let channel = state.channel {
            let columns = layout.channelColumns
            for (offset, row) in timelineRows(state, channel: channel, layout: layout).enumerated() {
                drawTimelineRow(row, row: layout.timelineRows.lowerBound + offset, columns: columns, into: &grid)
            }
        }
        if state.openChat != nil { drawNotesAndComposer(state, layout: layout, into: &grid) }
    }

    /// The channel's header row (the chat's name, its server, whether its history may miss messages), or where
    /// no chat is open, what the channel's side says instead.
    static func drawHeader(_ state: ChatState, layout: ClientLayout, into grid: inout Grid) {
        let columns = layout.channelColumns
        guard let chat = state.openChat else {
            grid.write(
                state.models.chats.isEmpty ? "Waiting for the chats…" : "No chat open: Alt-↑/Alt-↓ picks one.",
                row: layout.timelineRows.lowerBound + 1, column: columns.lowerBound + 1, style: ChatStyle.dim)
            return
        }
        var used = grid.write(
            TextLayout.truncate("#" + chat.name, width: columns.count / 2), row: layout.headerRow,
            column: columns.lowerBound + 1, style: ChatStyle.title)
        if let server = chat.serverID.flatMap({ state.models.serverNames[$0] }) {
            used += grid.write(
                TextLayout.truncate(" · \(server)", width: columns.count / 3), row: layout.headerRow,
                column: columns.lowerBound + 1 + used, style: ChatStyle.dim)
        }
        let channel = state.channel
        if channel?.isStale ?? true {
            grid.write(
                " · updating: may miss messages", row: layout.headerRow, column: columns.lowerBound + 1 + used,
                style: ChatStyle.gap, limit: columns.count - used - 2)
        }
        let hint = "F3 members"
        if columns.count - used > 50 {
            grid.write(hint, row: layout.headerRow, column: columns.upperBound - hint.count - 1, style: ChatStyle.dim)
        }
        if channel == nil {
            grid.write(
                "Loading the history…", row: layout.timelineRows.lowerBound, column: columns.lowerBound + 1,
                style: ChatStyle.dim)
        }
    }

    /// What a row of the timeline shows.
    enum TimelineRow: Equatable {
        /// Nothing: above a history shorter than the timeline.
        case blank
        /// A row of an item.
        case spans([Span])
        /// The "new messages below" hint, over the last row when scrolled up.
        case newBelowHint
    }

    /// The timeline's rows, top to bottom, one per row of the layout's timeline: bottom-aligned, a short history
    /// sits just above the composer.
    static func timelineRows(_ state: ChatState, channel: ChannelView, layout: ClientLayout) -> [TimelineRow] {
        var unkept: Timeline.BottomRows?
        return timelineRows(state, channel: channel, layout: layout, keeping: &unkept, continues: false)
    }

    /// The timeline's rows, the bottom window continued from `kept` (the last frame's) and kept for the next frame
    /// when `continues` (``Timeline/bottomRows(height:continuing:)``): the same rows as laid out whole.
    static func timelineRows(
        _ state: ChatState, channel: ChannelView, layout: ClientLayout, keeping kept: inout Timeline.BottomRows?,
        continues: Bool
    ) -> [TimelineRow] {
        let columns = layout.channelColumns
        let timeline = Timeline(
            channel: channel, width: columns.count - 1, currentUserID: state.models.currentUserID,
            timeZone: state.timeZone, selection: state.selection)
        let height = layout.timelineRows.count
        if continues, state.scroll == .bottom {
            let bottom = timeline.bottomRows(height: height, continuing: kept)
            kept = bottom
            var rows = [TimelineRow](repeating: .blank, count: max(0, height - bottom.rows.count))
            rows += bottom.rows.prefix(height).map { .spans($0) }
            return rows
        }
        kept = nil
        let window = timeline.window(height: height, position: state.scroll)
        var rows = [TimelineRow](repeating: .blank, count: max(0, height - window.rows.count))
        rows += window.rows.prefix(height).map { .spans($0.spans) }
        if !window.isAtBottom, hasNewBelow(state, channel: channel), !rows.isEmpty {
            rows[rows.count - 1] = .newBelowHint
        }
        return rows
    }

    /// Draws a timeline row into a row of blank cells.
    static func drawTimelineRow(_ content: TimelineRow, row: Int, columns: Range<Int>, into grid: inout Grid) {
        switch content {
        case .blank: break
        case .spans(let spans): grid.write(spans, row: row, column: columns.lowerBound + 1, limit: columns.count - 1)
        case .newBelowHint:
            let text = " ↓ new messages below · PgDn "
            grid.fill(row: row, columns: columns, style: ChatStyle.selected)
            ChatScreen.centeredIn(text, row: row, columns: columns, into: &grid, style: ChatStyle.selected)
        }
    }

    /// The notes under the timeline (or a rule) and the composer.
    static func drawNotesAndComposer(_ state: ChatState, layout: ClientLayout, into grid: inout Grid) {
        let columns = layout.channelColumns
        let notes = ChatScreen.notes(state)
        if notes.isEmpty {
            grid.write(
                String(repeating: "─", count: columns.count), row: layout.noteRows.lowerBound,
                column: columns.lowerBound, style: ChatStyle.separator)
        }
        for (offset, note) in notes.enumerated() where layout.noteRows.lowerBound + offset < layout.noteRows.upperBound
        {
            grid.write(
                note, row: layout.noteRows.lowerBound + offset, column: columns.lowerBound + 1, limit: columns.count - 1
            )
        }
        drawComposer(state, layout: layout, into: &grid)
    }

    /// Whether the open channel has messages newer than the newest that was on screen.
    static func hasNewBelow(_ state: ChatState, channel: ChannelView) -> Bool {
        guard let newest = channel.messages.last?.id else { return false }
        return state.newestSeen.map { newest > $0 } ?? true
    }

    private static func drawComposer(_ state: ChatState, layout: ClientLayout, into grid: inout Grid) {
        let columns = layout.channelColumns
        let width = max(1, ClientLayout.composerWidth(state))
        let prompt = composerPrompt(state)
        grid.write(
            prompt.trimmingCharacters(in: .whitespaces), row: layout.composerRows.lowerBound,
            column: columns.lowerBound, style: ChatStyle.key)
        if state.compose == .attach, state.composer.isEmpty {
            grid.write(
                TextLayout.truncate("the file's path (~ is your home)", width: width),
                row: layout.composerRows.lowerBound, column: columns.lowerBound + prompt.count, style: ChatStyle.dim)
            return
        }
        if state.composer.isEmpty {
            let reacting: Bool
            if case .reaction = state.compose { reacting = true } else { reacting = false }
            let placeholder =
                reacting
                ? "Type an emoji, or Enter takes the one picked"
                : state.channel?.timeoutUntil.map { $0 > state.now } == true
                    ? "Timed out: you can read, not send"
                    : "Type a message · Enter sends · Alt-Enter new line · ? help"
            grid.write(
                TextLayout.truncate(placeholder, width: width), row: layout.composerRows.lowerBound,
                column: columns.lowerBound + prompt.count, style: ChatStyle.dim)
            return
        }
        let lines = TextLayout.wrap(state.composer.text, width: width)
        let shown = lines.suffix(layout.composerRows.count)
        for (offset, line) in shown.enumerated() {
            grid.write(line, row: layout.composerRows.lowerBound + offset, column: columns.lowerBound + prompt.count)
        }
    }

    /// What stands before the composer's text: `› `, or `attach: ` while it takes a file's path (Ctrl-O).
    static func composerPrompt(_ state: ChatState) -> String {
        state.compose == .attach ? "attach: " : "› "
    }

    // MARK: - Members

    static func drawMembers(_ state: ChatState, columns: Range<Int>, rows: Range<Int>, into grid: inout Grid) {
        guard let members = state.models.members else {
            grid.write("Members…", row: rows.lowerBound, column: columns.lowerBound + 1, style: ChatStyle.dim)
            return
        }
        let heading = "Members · \(members.rows.count)\(members.isStale ? " · updating" : "")"
        grid.write(
            TextLayout.truncate(heading, width: columns.count - 1), row: rows.lowerBound,
            column: columns.lowerBound + 1,
            style: ChatStyle.bold)
        for (offset, member) in members.rows.prefix(rows.count - 1).enumerated() {
            let online = member.user?.online == true ? "●" : "○"
            let timedOut = member.member.timeout.map { $0 > state.now } == true ? " (timed out)" : ""
            grid.write(
                TextLayout.truncate("\(online) \(member.name)\(timedOut)", width: columns.count - 1),
                row: rows.lowerBound + 1 + offset, column: columns.lowerBound + 1,
                style: member.id == state.models.currentUserID ? ChatStyle.bold : .plain)
        }
    }

    // MARK: - Overlays

    static func helpLines(_ state: ChatState) -> [[Span]] {
        func key(_ keys: String, _ text: String) -> [Span] {
            [Span(keys.padding(toLength: 17, withPad: " ", startingAt: 0), ChatStyle.key), Span(text)]
        }
        var lines: [[Span]] = [
            key("Enter", "send the message (Alt-Enter: a new line)"),
            key("Alt-↑ Alt-↓", "the previous / next chat"),
            key("Ctrl-N", "the next unread chat"),
            key("PgUp PgDn", "scroll; PgUp at the top loads older messages"),
            key("Alt-J", "jump to the first unread message (PgDn goes on down)"),
            key("Ctrl-↑ Ctrl-↓", "select a message or a pending send"),
            key("Alt-R", "reply to the selected message"),
            key("Alt-E", "edit your selected message (Enter saves)"),
            key("Alt-D", "delete the selected message (Enter confirms)"),
            key("Alt-A Alt-U", "react to the selected message / take it back"),
            key("Ctrl-O", "attach a file by its path (Enter sends it with your draft)"),
            key("F7 F8", "send a failed message or action again / discard it"),
            key("F3", "the member list"),
            key("F2", "the cause of the last failure"),
            key("F10", "log out"),
            key("Esc", "close, cancel the reply, back to the newest"),
            key("Ctrl-C Ctrl-Q", "quit"),
            key("Ctrl-A E K U W Y", "edit the text as readline does"),
        ]
        let session = state.models.session.state
        if session == .disconnected || session == .offline {
            lines.insert(key("F5", "reconnect now, without waiting"), at: 14)
        }
        if state.mode == .demo {
            // The demo's faults first: on a short screen the box shows what it can, and these matter most there.
            var demo: [[Span]] = [
                [
                    Span(
                        "A local demo world: its server runs in this program, its people are simulated.", ChatStyle.bold
                    )
                ],
                [Span("Faults to inject, to see every state of the session:", ChatStyle.dim)],
            ]
            for fault in DemoFault.allCases { demo.append(key(fault.key.name, fault.summary)) }
            lines = demo + [[]] + lines
        }
        lines.append([])
        lines.append([Span("Esc or ? closes this.", ChatStyle.dim)])
        return lines
    }

    static func failureLines(_ state: ChatState) -> [[Span]] {
        let session = state.models.session
        guard let error = state.models.lastFailure else {
            return [[Span("No failure since the session started.")], [], [Span("Esc closes this.", ChatStyle.dim)]]
        }
        var lines: [[Span]] = []
        if let failure = error.failure {
            lines.append([Span("Cause: ", ChatStyle.bold), Span(failure.code.rawValue, ChatStyle.key)])
            lines.append([Span(failure.message)])
            var cause = failure.cause
            var depth = 0
            while let inner = cause, depth < 3 {
                lines.append([Span("  ← \(inner)", ChatStyle.dim)])
                cause = (inner as? any LifelineError)?.cause
                depth += 1
            }
        } else {
            lines.append([Span("Cause: ", ChatStyle.bold), Span(error.code.rawValue, ChatStyle.key)])
            lines.append([Span(error.message)])
        }
        lines.append([])
        if let date = state.models.lastFailureDate {
            let seconds = max(0, Int(state.now.timeIntervalSince(date).rounded(.down)))
            let ago = seconds < 120 ? "\(seconds) s ago" : "\(seconds / 60) min ago"
            lines.append([Span("When: \(ago)", ChatStyle.dim)])
        }
        if session.lastError == nil {
            lines.append([Span("The session has been \(session.state.rawValue) since.", ChatStyle.dim)])
        } else {
            lines.append([Span("Failures in a row: \(session.failures)", ChatStyle.dim)])
        }
        lines.append([Span("Esc closes this.", ChatStyle.dim)])
        return lines
    }

    /// A box in the middle of the screen, over what is there.
    static func drawBox(title: String, lines: [[Span]], into grid: inout Grid) {
        let widest = lines.map { $0.reduce(0) { $0 + TextLayout.columns(of: $1.text) } }.max() ?? 0
        let width = min(grid.size.columns - 2, max(widest, TextLayout.columns(of: title)) + 4)
        let height = min(grid.size.rows - 2, lines.count + 2)
        let left = (grid.size.columns - width) / 2
        let top = max(1, (grid.size.rows - height) / 2)
        for row in top..<(top + height) {
            grid.fill(row: row, columns: left..<(left + width), style: ChatStyle.overlay)
        }
        let border = ChatStyle.overlay
        grid.write("┌" + String(repeating: "─", count: width - 2) + "┐", row: top, column: left, style: border)
        grid.write(" \(title) ", row: top, column: left + 2, style: ChatStyle.bold)
        for row in (top + 1)..<(top + height - 1) {
            grid.write("│", row: row, column: left, style: border)
            grid.write("│", row: row, column: left + width - 1, style: border)
        }
        grid.write(
            "└" + String(repeating: "─", count: width - 2) + "┘", row: top + height - 1, column: left, style: border)
        for (offset, line) in lines.prefix(height - 2).enumerated() {
            grid.write(
                line.map { Span($0.text, merged($0.style)) }, row: top + 1 + offset, column: left + 2, limit: width - 4)
        }
    }

    private static func merged(_ style: TextStyle) -> TextStyle {
        var style = style
        if style.background == .default { style.background = ChatStyle.overlay.background }
        return style
    }
}

extension ChatScreen {
    static func centeredIn(_ text: String, row: Int, columns: Range<Int>, into grid: inout Grid, style: TextStyle) {
        let shown = TextLayout.truncate(text, width: columns.count)
        let column = columns.lowerBound + max(0, (columns.count - TextLayout.columns(of: shown)) / 2)
        grid.write(shown, row: row, column: column, style: style)
    }
}
