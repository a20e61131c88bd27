public import LifelineTerminal

/// Where the client's screen puts each of its parts at a size: the status line, the outage alert, the chat list,
/// the channel's header, timeline, typing line and composer, the member list.
///
/// Shared by ``ChatScreen``, which draws into the regions, and ``ChatReducer``, which needs to know what is on
/// screen (to acknowledge a channel whose newest message is shown, to scroll by a page, to open a clicked chat).
public struct ClientLayout: Sendable, Equatable {
    /// The smallest size the client draws in; below it the screen says it is too small.
    public static let minimum = TerminalSize(columns: 50, rows: 12)

    /// The most rows the composer grows to.
    static let composerRows = 5

    /// The status line's row.
    public let statusRow = 0
    /// The outage alert's row, when there is one.
    public let alertRow: Int?
    /// The chat list: its columns and rows.
    public let list: (columns: Range<Int>, rows: Range<Int>)
    /// The channel's header row.
    public let headerRow: Int
    /// The timeline's rows.
    public let timelineRows: Range<Int>
    /// The row naming who types, and the composer's notes (a reply, a countdown), under the timeline.
    public let noteRows: Range<Int>
    /// The composer's rows.
    public let composerRows: Range<Int>
    /// The columns of the channel's side (header, timeline, notes, composer).
    public let channelColumns: Range<Int>
    /// The member list's columns, when it shows.
    public let members: Range<Int>?

    /// The regions of a size.
    ///
    /// - Parameters:
    ///   - size: The terminal's size.
    ///   - hasAlert: Whether an outage alert takes a row under the status line.
    ///   - composerLines: How many lines the composer's text takes (1 to 5 rows are given).
    ///   - noteLines: How many note lines show under the timeline (typing, a reply, a countdown, an error).
    ///   - showsMembers: Whether the member list shows.
    public init(size: TerminalSize, hasAlert: Bool, composerLines: Int, noteLines: Int, showsMembers: Bool) {
        let top = hasAlert ? 2 : 1
        alertRow = hasAlert ? 1 : nil
        let listWidth = min(30, max(20, size.columns / 6))
        list = (0..<listWidth, top..<size.rows)
        let channelStart = listWidth + 1
        var channelEnd = size.columns
        if showsMembers {
            let width = min(28, max(18, (size.columns - channelStart) / 4))
            members = (size.columns - width)..<size.columns
            channelEnd = size.columns - width - 1
        } else {
            members = nil
        }
        channelColumns = channelStart..<max(channelStart, channelEnd)
        headerRow = top
        let composerHeight = min(Self.composerRows, max(1, composerLines))
        composerRows = (size.rows - composerHeight)..<size.rows
        // The separator above the composer is the notes' first row when there are none.
        let notes = max(1, noteLines)
        noteRows = (composerRows.lowerBound - notes)..<composerRows.lowerBound
        timelineRows = (top + 1)..<max(top + 1, noteRows.lowerBound)
    }

    /// The layout of a state: its size, its alert, its composer and notes.
    public init(_ state: ChatState) {
        let width = max(1, Self.composerWidth(state))
        let lines = TextLayout.wrap(state.composer.text, width: width).count
        self.init(
            size: state.size, hasAlert: state.models.session.presentation.outageAlert != nil,
            composerLines: lines, noteLines: ChatScreen.notes(state).count, showsMembers: state.showsMembers)
    }

    /// Whether two layouts put every part in the same place.
    public static func == (lhs: ClientLayout, rhs: ClientLayout) -> Bool {
        lhs.alertRow == rhs.alertRow && lhs.list.columns == rhs.list.columns && lhs.list.rows == rhs.list.rows
            && lhs.headerRow == rhs.headerRow && lhs.timelineRows == rhs.timelineRows && lhs.noteRows == rhs.noteRows
            && lhs.composerRows == rhs.composerRows && lhs.channelColumns == rhs.channelColumns
            && lhs.members == rhs.members
    }

    /// The width the composer's text wraps in: the channel's columns minus the prompt.
    static func composerWidth(_ state: ChatState) -> Int {
        let listWidth = min(30, max(20, state.size.columns / 6))
        var width = state.size.columns - listWidth - 1
        if state.showsMembers { width -= min(28, max(18, width / 4)) + 1 }
        return width - ClientScreen.composerPrompt(state).count
    }
}
