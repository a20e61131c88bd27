import LifelineStoatStore
public import LifelineTerminal

/// Builds the frames of `lifeline chat` incrementally: the same grid as ``ChatScreen/render(_:size:)``, made from
/// the last frame by drawing again only the parts whose content changed.
///
/// The client screen's parts (the status line, the alert, the chat list, the channel's header, each row of the
/// timeline, the notes and the composer) each have a key: the values their drawing reads. A part whose key did not
/// change keeps its cells; a timeline row that moved (a new message pushed the rows up) is copied from the row it
/// was on, and only the rows nothing showed before are laid out and drawn. Anything else — another screen, an
/// overlay, a new size or layout, no open channel — is drawn whole, as ``ChatScreen`` draws it. The frames are
/// equal either way (a test compares them over random sessions); this one costs what changed, which is what an
/// incoming message must cost on a 200×60 screen (`lifeline bench chat-frame`).
public struct ChatFrameBuilder: Sendable {
    /// The last frame and the keys it was drawn from (`nil` when it was not the client's screen).
    private var last: (grid: Grid, keys: Keys)?

    /// What the last frame ``render(_:size:)`` built changed from the one before it: the rows it drew and the
    /// timeline's move, for LifelineTerminal's `Renderer.render(_:cursor:changes:into:)`; `nil` when it was
    /// drawn whole.
    public private(set) var changes: FrameChanges?

    /// The timeline's bottom window in the last frame, continued by the next one: a new message lays out its own
    /// rows, not the window's.
    private var bottomRows: Timeline.BottomRows?

    /// The frame before the last one, which nothing shows any more: the next frame is made in its storage (the last
    /// frame's cells copied in) rather than in a new one the size of the screen.
    private var spare: Grid?

    /// A builder whose first frame is drawn whole.
    public init() {}

    /// The values each part of the client's screen is drawn from.
    struct Keys: Equatable {
        var size: TerminalSize
        var layout: ClientLayout
        var status: [String]
        var statusStyle: TextStyle
        var alert: String?
        var list: ListKey
        var header: HeaderKey
        var timeline: [ClientScreen.TimelineRow]
        var bottom: BottomKey
    }

    /// What the chat list's drawing reads.
    struct ListKey: Equatable {
        struct Entry: Equatable {
            var id: String
            var name: String
            var kind: Channel.Kind
            var server: String?
            var isUnread: Bool
            var mentions: Int
        }
        var chats: [Entry]
        var open: String?
        var isConnected: Bool
    }

    /// What the channel's header reads.
    struct HeaderKey: Equatable {
        var name: String
        var server: String?
        var isStale: Bool
    }

    /// What the notes and the composer read.
    struct BottomKey: Equatable {
        var notes: [[Span]]
        var composer: String
        var timedOut: Bool
    }

    /// The frame for a state at a size: equal to ``ChatScreen/render(_:size:)``'s.
    ///
    /// - Parameters:
    ///   - state: The state to draw.
    ///   - size: The terminal's size.
    /// - Returns: The frame.
    public mutating func render(_ state: ChatState, size: TerminalSize) -> Grid {
        var state = state
        state.size = size
        guard size.columns >= ClientLayout.minimum.columns, size.rows >= ClientLayout.minimum.rows,
            state.models.session.presentation.screen == .client, state.overlay == nil, let chat = state.openChat,
            let channel = state.channel
        else {
            last = nil
            changes = nil
            bottomRows = nil
            spare = nil
            return ChatScreen.render(state, size: size)
        }
        let layout = ClientLayout(state)
        let keys = self.keys(state, chat: chat, channel: channel, layout: layout)
        guard let (previousGrid, previous) = last, previous.size == size, previous.layout == layout else {
            var grid = Grid(size: size)
            ClientScreen.draw(state, into: &grid)
            last = (grid, keys)
            changes = nil
            return grid
        }
        // The last changes hold the frame before the last one: let go, it is the spare's alone (unless a caller
        // keeps it, when the copy below makes storage of its own).
        changes = nil
        var grid = previousGrid
        if var reused = spare, reused.size == size {
            spare = nil
            reused.copyCells(from: previousGrid)
            grid = reused
        }
        let everyColumn = 0..<size.columns
        // The rows drawn again, and the timeline's move: what the renderer compares.
        var drawn: [Int] = []
        var move: FrameChanges.Move?
        if keys.status != previous.status || keys.statusStyle != previous.statusStyle {
            drawn.append(0)
            grid.fill(row: 0, columns: everyColumn)
            ClientScreen.drawStatus(state, into: &grid)
        }
        if keys.alert != previous.alert, let row = layout.alertRow {
            drawn.append(row)
            grid.fill(row: row, columns: everyColumn)
            ClientScreen.drawAlert(state, layout: layout, into: &grid)
        }
        if keys.list != previous.list {
            drawn += layout.list.rows
            for row in layout.list.rows { grid.fill(row: row, columns: layout.list.columns) }
            ClientScreen.drawChatList(state, layout: layout, into: &grid)
        }
        let columns = layout.channelColumns
        if keys.header != previous.header {
            drawn.append(layout.headerRow)
            grid.fill(row: layout.headerRow, columns: columns)
            ClientScreen.drawHeader(state, layout: layout, into: &grid)
        }
        if keys.timeline != previous.timeline {
            move = updateTimeline(
                &grid, from: previous.timeline, of: previousGrid, to: keys.timeline, rows: layout.timelineRows,
                columns: columns, drawn: &drawn)
        }
        if keys.bottom != previous.bottom {
            drawn += layout.noteRows.lowerBound..<size.rows
            for row in layout.noteRows.lowerBound..<size.rows { grid.fill(row: row, columns: columns) }
            ClientScreen.drawNotesAndComposer(state, layout: layout, into: &grid)
        }
        if let members = layout.members {
            // A few rows, shown on request: drawn again each frame.
            drawn += layout.list.rows
            for row in layout.list.rows { grid.fill(row: row, columns: members) }
            ClientScreen.drawMembers(state, columns: members, rows: layout.list.rows, into: &grid)
        }
        last = (grid, keys)
        changes = FrameChanges(from: previousGrid, rows: drawn, move: move)
        spare = previousGrid
        return grid
    }

    /// Brings the timeline's rows from what the last frame showed to `new`: a row that shows what it showed is
    /// kept, a row that shows what another row showed (the timeline moved) is copied from it, the rest is drawn.
    ///
    /// Returns the move when the timeline moved, and adds to `drawn` every row of it the move does not explain: one
    /// drawn, or kept where the row the move would bring differs.
    private func updateTimeline(
        _ grid: inout Grid, from old: [ClientScreen.TimelineRow], of previous: Grid,
        to new: [ClientScreen.TimelineRow], rows: Range<Int>, columns: Range<Int>, drawn: inout [Int]
    ) -> FrameChanges.Move? {
        // The move: where the first row with content was before.
        var shift: Int?
        if let first = new.firstIndex(where: { $0 != .blank }), let before = old.firstIndex(of: new[first]) {
            shift = before - first
        }
        let moves = shift.map { $0 != 0 && abs($0) < new.count && new.count == old.count } ?? false
        for (offset, content) in new.enumerated() {
            let row = rows.lowerBound + offset
            let moved =
                moves && shift.map { old.indices.contains(offset + $0) && old[offset + $0] == content } ?? false
            if offset < old.count, old[offset] == content {
                if moves, !moved { drawn.append(row) }
                continue
            }
            if let shift, moved {
                grid.copy(row: row + shift, of: previous, to: row, columns: columns)
                continue
            }
            drawn.append(row)
            grid.fill(row: row, columns: columns)
            ClientScreen.drawTimelineRow(content, row: row, columns: columns, into: &grid)
        }
        guard moves, let shift else { return nil }
        return FrameChanges.Move(rows: rows, columns: columns, shift: shift)
    }

    private mutating func keys(_ state: ChatState, chat: Chat, channel: ChannelView, layout: ClientLayout) -> Keys {
        let status = ClientScreen.statusText(state)
        let models = state.models
        let entries = models.chats.map { chat in
            ListKey.Entry(
                id: chat.id, name: chat.name, kind: chat.kind, server: chat.serverID.flatMap { models.serverNames[$0] },
                isUnread: chat.isUnread, mentions: chat.mentionCount)
        }
        return Keys(
            size: state.size, layout: layout, status: [status.left, status.right], statusStyle: status.style,
            alert: ClientScreen.alertText(state, layout: layout),
            list: ListKey(chats: entries, open: state.openChannel, isConnected: models.session.state == .connected),
            header: HeaderKey(
                name: chat.name, server: chat.serverID.flatMap { models.serverNames[$0] }, isStale: channel.isStale),
            timeline: ClientScreen.timelineRows(
                state, channel: channel, layout: layout, keeping: &bottomRows, continues: true),
            bottom: BottomKey(
                notes: ChatScreen.notes(state), composer: state.composer.text,
                timedOut: channel.timeoutUntil.map { $0 > state.now } == true))
    }
}
