public import LifelineStoatStore
import LifelineTerminal

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The open channel's timeline as rows: its items (messages, gaps, markers, pending sends) in order, each laid out
/// in the timeline's width, and the window of them a scroll position shows.
///
/// Items are laid out only as far as the window needs, so a channel of thousands of messages costs a screenful.
public struct Timeline: Sendable {
    /// One thing the timeline shows.
    public struct Item: Sendable {
        /// What it is.
        public enum Kind: Sendable {
            /// The top: the channel's start, a page loading, or how to load one.
            case top(reachedStart: Bool, isLoading: Bool)
            /// A message.
            case message(Message)
            /// A hole in the history.
            case gap(HistoryGap)
            /// The first unread message is below.
            case unreadDivider
            /// What the last catch-up found.
            case catchUp(ChatCatchUp)
            /// A send the server has not confirmed.
            case pending(OutboxEntry)
        }

        /// A stable id: `m:ID` for a message, `g:AFTER` for a gap, `p:NONCE` for a pending send, and `top`,
        /// `unread`, `caught-up` for the markers.
        public var id: String
        /// What it is.
        public var kind: Kind

        /// Whether the scroll position may anchor to it: a message or a gap, whose place never moves.
        var isAnchor: Bool {
            switch kind {
            case .message, .gap: true
            default: false
            }
        }
    }

    /// The items, oldest first.
    public let items: [Item]
    /// The width the rows are laid out in.
    public let width: Int
    private let channel: ChannelView
    private let currentUserID: String?
    private let timeZone: TimeZone
    private let selection: String?
    private let messageIndex: [String: Int]

    /// The timeline of a channel.
    ///
    /// - Parameters:
    ///   - channel: The channel's values.
    ///   - width: The timeline's width in columns.
    ///   - currentUserID: The signed-in user (their names are drawn in their own colour; the unread divider skips
    ///     their messages).
    ///   - timeZone: The time zone of the messages' times.
    ///   - selection: The selected item's id, drawn highlighted.
    public init(
        channel: ChannelView, width: Int, currentUserID: String?, timeZone: TimeZone, selection: String? = nil
    ) {
        self.channel = channel
        self.width = width
        self.currentUserID = currentUserID
        self.timeZone = timeZone
        self.selection = selection
        var items: [Item] = [
            Item(id: "top", kind: .top(reachedStart: channel.reachedStart, isLoading: channel.isLoadingOlder))
        ]
        items.reserveCapacity(channel.messages.count + channel.pending.count + 4)
        var gaps = channel.gaps.sorted { $0.after < $1.after }[...]
        var dividerPlaced = channel.lastRead == nil
        var catchUpPlaced = channel.catchUp == nil
        var index: [String: Int] = [:]
        index.reserveCapacity(channel.messages.count)
        for (position, message) in channel.messages.enumerated() {
            while let gap = gaps.first, gap.after < message.id, gap.before <= message.id {
                items.append(Item(id: "g:\(gap.after)", kind: .gap(gap)))
                gaps.removeFirst()
            }
            if !dividerPlaced, let lastRead = channel.lastRead, message.id > lastRead, message.author != currentUserID {
                items.append(Item(id: "unread", kind: .unreadDivider))
                dividerPlaced = true
            }
            if !catchUpPlaced, let catchUp = channel.catchUp, let oldest = catchUp.oldestFound, message.id >= oldest {
                items.append(Item(id: "caught-up", kind: .catchUp(catchUp)))
                catchUpPlaced = true
            }
            index[message.id] = position
            items.append(Item(id: "m:\(message.id)", kind: .message(message)))
        }
        for gap in gaps { items.append(Item(id: "g:\(gap.after)", kind: .gap(gap))) }
        if !catchUpPlaced, let catchUp = channel.catchUp {
            items.append(Item(id: "caught-up", kind: .catchUp(catchUp)))
        }
        for entry in channel.pending { items.append(Item(id: "p:\(entry.nonce)", kind: .pending(entry))) }
        self.items = items
        messageIndex = index
    }

    // MARK: - Rows

    /// The rows of one item, each a list of spans.
    public func rows(of index: Int) -> [[Span]] {
        let item = items[index]
        var rows: [[Span]]
        switch item.kind {
        case .top(let reachedStart, let isLoading):
            let text =
                reachedStart
                ? "── the start of this channel ──" : isLoading ? "loading older messages…" : "PgUp: older messages"
            rows = [[Span(TextLayout.truncate(text, width: width), ChatStyle.dim)]]
        case .message(let message):
            rows = messageRows(message)
        case .gap:
            rows = [
                [
                    Span(
                        TextLayout.truncate("┄┄ history not loaded here · PgUp loads it ┄┄", width: width),
                        ChatStyle.gap)
                ]
            ]
        case .unreadDivider:
            rows = [[Span(rule("new messages"), ChatStyle.divider)]]
        case .catchUp(let catchUp):
            let noun = catchUp.messages == 1 ? "message" : "messages"
            rows = [[Span(rule("caught up: \(catchUp.messages) \(noun)"), ChatStyle.marker)]]
        case .pending(let entry):
            rows = pendingRows(entry)
        }
        if item.id == selection {
            rows = rows.map { row in row.map { Span($0.text, selectedStyle($0.style)) } }
        }
        return rows
    }

    private func selectedStyle(_ style: TextStyle) -> TextStyle {
        var selected = style
        selected.attributes.insert(.reverse)
        return selected
    }

    private func rule(_ text: String) -> String {
        let label = " \(text) "
        let side = max(2, (width - TextLayout.columns(of: label)) / 2)
        return TextLayout.truncate(
            String(repeating: "─", count: side) + label + String(repeating: "─", count: side), width: width)
    }

    /// How far message text is indented: after `HH:MM `.
    static let indent = 6

    private func time(of message: Message) -> String {
        guard let date = ULID.date(of: message.id) else { return "--:--" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    private func messageRows(_ message: Message) -> [[Span]] {
        var rows: [[Span]] = []
        let textWidth = max(1, width - Self.indent)
        if let replied = message.replies?.first {
            let quoted = messageIndex[replied].map { channel.messages[$0] }
            let text =
                quoted.map { "↳ \(name(of: $0)): \($0.content ?? "")" } ?? "↳ a reply to a message not shown here"
            rows.append([
                Span(String(repeating: " ", count: Self.indent)),
                Span(TextLayout.truncate(text, width: textWidth), ChatStyle.dim),
            ])
        }
        let author = name(of: message)
        let isSelf = message.author == currentUserID
        var body = message.content ?? ""
        if let system = message.system {
            body = "* " + [system.type, system.content ?? system.name ?? system.by ?? ""].joined(separator: " ")
        }
        for file in message.attachments ?? [] {
            body += (body.isEmpty ? "" : "\n") + "[attachment: \(file.filename ?? "a file")]"
        }
        let authorWidth = min(TextLayout.columns(of: author), max(4, textWidth / 3))
        let firstWidth = max(1, textWidth - authorWidth - 1)
        var lines = TextLayout.wrap(body, width: firstWidth)
        if lines.count > 1 {
            // The first line beside the name; the rest from the indent, in the full width.
            let rest = lines.dropFirst().joined(separator: "\n")
            lines = [lines[0]] + TextLayout.wrap(rest, width: textWidth)
        }
        let edited = message.edited != nil ? " (edited)" : ""
        for (number, line) in lines.enumerated() {
            var row: [Span]
            if number == 0 {
                row = [
                    Span(time(of: message) + " ", ChatStyle.dim),
                    Span(
                        TextLayout.truncate(author, width: authorWidth),
                        ChatStyle.author(message.author, isSelf: isSelf)),
                    Span(" " + line),
                ]
            } else {
                row = [Span(String(repeating: " ", count: Self.indent)), Span(line)]
            }
            if number == lines.count - 1, !edited.isEmpty {
                let used = row.reduce(0) { $0 + TextLayout.columns(of: $1.text) }
                if used + edited.count <= width {
                    row.append(Span(edited, ChatStyle.dim))
                } else {
                    rows.append(row)
                    row = [
                        Span(String(repeating: " ", count: Self.indent)),
                        Span(edited.dropFirst().description, ChatStyle.dim),
                    ]
                }
            }
            rows.append(row)
        }
        if let reactions = message.reactions, !reactions.isEmpty {
            let text = reactions.keys.sorted().map { "\($0) \(reactions[$0]?.count ?? 0)" }.joined(separator: "  ")
            rows.append([
                Span(String(repeating: " ", count: Self.indent)),
                Span(TextLayout.truncate(text, width: textWidth), ChatStyle.dim),
            ])
        }
        return rows
    }

    private func name(of message: Message) -> String {
        channel.authorNames[message.id] ?? message.masquerade?.name ?? message.webhook?.name ?? message.user?.username
            ?? message.author
    }

    private func pendingRows(_ entry: OutboxEntry) -> [[Span]] {
        let textWidth = max(1, width - Self.indent)
        let state: (String, TextStyle)
        switch entry.state {
        case .queued(let retryAfter?):
            state = ("queued · slowmode \(Int((retryAfter / .seconds(1)).rounded(.up))) s", ChatStyle.pending)
        case .queued: state = ("queued", ChatStyle.pending)
        case .sending: state = ("sending…", ChatStyle.pending)
        case .sent: state = ("sent", ChatStyle.pending)
        case .failed(let failure):
            state = ("not sent: \(failure.message) (\(failure.code)) · F7 resend · F8 discard", ChatStyle.failed)
        }
        var rows: [[Span]] = []
        let lines = TextLayout.wrap(entry.message.content ?? "", width: textWidth)
        for (number, line) in lines.enumerated() {
            let lead = number == 0 ? "  ··  " : String(repeating: " ", count: Self.indent)
            rows.append([Span(lead, ChatStyle.pending), Span(line, ChatStyle.pending)])
        }
        for line in TextLayout.wrap(state.0, width: textWidth) {
            rows.append([Span(String(repeating: " ", count: Self.indent)), Span(line, state.1)])
        }
        return rows
    }

    // MARK: - The window

    /// A position in the rows: an item and a row of it.
    struct RowPosition: Equatable {
        var item: Int
        var line: Int
    }

    /// What a scroll position shows in `height` rows.
    public struct Window: Sendable {
        /// The rows, top to bottom, with the index of the item each belongs to.
        public var rows: [(item: Int, spans: [Span])]
        /// Whether the first row is the timeline's first.
        public var isAtTop: Bool
        /// Whether the last row is the timeline's last (the view follows new messages).
        public var isAtBottom: Bool
        /// The scroll position, anchored to an item when not at the bottom.
        public var position: ChatState.ScrollPosition
        /// The indices of the items with a row on screen.
        public var visibleItems: Range<Int>
        /// The first row's item and which of its rows it is.
        var start: RowPosition
    }

    /// The rows a scroll position shows in `height` rows.
    public func window(height: Int, position: ChatState.ScrollPosition) -> Window {
        var cache: [Int: [[Span]]] = [:]
        func rowsOf(_ index: Int) -> [[Span]] {
            if let rows = cache[index] { return rows }
            let rows = self.rows(of: index)
            cache[index] = rows
            return rows
        }
        let start: RowPosition? = {
            guard case .anchored(let id, let line) = position, let index = items.firstIndex(where: { $0.id == id })
            else { return nil }
            return move(RowPosition(item: index, line: 0), by: line, rowsOf)
        }()
        guard let start else { return bottomWindow(height: height, rowsOf) }
        // Forward from the anchor: if the timeline ends before the window is full, the window is the bottom one.
        var rows: [(item: Int, spans: [Span])] = []
        var at = start
        while rows.count < height, at.item < items.count {
            let itemRows = rowsOf(at.item)
            if at.line < itemRows.count {
                rows.append((at.item, itemRows[at.line]))
                at.line += 1
            } else {
                at = RowPosition(item: at.item + 1, line: 0)
            }
        }
        let reachedEnd = !hasRow(after: at, rowsOf)
        if rows.count < height || reachedEnd { return bottomWindow(height: height, rowsOf) }
        let first = rows.first?.item ?? 0
        let last = rows.last?.item ?? 0
        return Window(
            rows: rows, isAtTop: start == RowPosition(item: 0, line: 0), isAtBottom: false,
            position: anchor(for: start, rowsOf), visibleItems: first..<(last + 1), start: start)
    }

    /// The position `rows` rows below (negative: above) the first row of a window at `position`.
    public func scrolled(_ position: ChatState.ScrollPosition, by delta: Int, height: Int) -> ChatState.ScrollPosition {
        var cache: [Int: [[Span]]] = [:]
        func rowsOf(_ index: Int) -> [[Span]] {
            if let rows = cache[index] { return rows }
            let rows = self.rows(of: index)
            cache[index] = rows
            return rows
        }
        let current = window(height: height, position: position)
        guard !current.rows.isEmpty else { return .bottom }
        let target = move(current.start, by: delta, rowsOf)
        let moved = window(height: height, position: anchor(for: target, rowsOf))
        return moved.isAtBottom ? .bottom : moved.position
    }

    private func bottomWindow(height: Int, _ rowsOf: (Int) -> [[Span]]) -> Window {
        var rows: [(item: Int, spans: [Span])] = []
        var index = items.count - 1
        var startLine = 0
        while index >= 0, rows.count < height {
            let itemRows = rowsOf(index)
            let take = min(itemRows.count, height - rows.count)
            startLine = itemRows.count - take
            rows.insert(contentsOf: itemRows.suffix(take).map { (index, $0) }, at: 0)
            if rows.count < height { index -= 1 }
        }
        let first = max(0, index)
        let isAtTop = index <= 0 && startLine == 0
        return Window(
            rows: rows, isAtTop: isAtTop, isAtBottom: true, position: .bottom,
            visibleItems: first..<max(first, items.count),
            start: RowPosition(item: first, line: index < 0 ? 0 : startLine))
    }

    private func hasRow(after position: RowPosition, _ rowsOf: (Int) -> [[Span]]) -> Bool {
        var at = position
        while at.item < items.count {
            if at.line < rowsOf(at.item).count { return true }
            at = RowPosition(item: at.item + 1, line: 0)
        }
        return false
    }

    /// `delta` rows down (negative: up) from a position, clamped to the timeline.
    private func move(_ position: RowPosition, by delta: Int, _ rowsOf: (Int) -> [[Span]]) -> RowPosition {
        var at = position
        var left = delta
        while left < 0 {
            if at.line > 0 {
                let step = min(-left, at.line)
                at.line -= step
                left += step
            } else if at.item > 0 {
                at = RowPosition(item: at.item - 1, line: rowsOf(at.item - 1).count)
            } else {
                break
            }
        }
        while left > 0, at.item < items.count {
            let count = rowsOf(at.item).count
            if at.line + left < count {
                at.line += left
                left = 0
            } else {
                left -= count - at.line
                at = RowPosition(item: at.item + 1, line: 0)
            }
        }
        if at.item >= items.count { return RowPosition(item: max(0, items.count - 1), line: 0) }
        return at
    }

    /// A position as an anchor: the first message or gap at or after it, with the rows between as a negative line.
    private func anchor(for position: RowPosition, _ rowsOf: (Int) -> [[Span]]) -> ChatState.ScrollPosition {
        var offset = -position.line
        var index = position.item
        while index < items.count, !items[index].isAnchor {
            offset += rowsOf(index).count
            index += 1
        }
        if index < items.count { return .anchored(item: items[index].id, line: -offset) }
        // Only markers below: anchor to the last message or gap above instead.
        var above = position.item - 1
        var rows = position.line
        while above >= 0 {
            rows += rowsOf(above).count
            if items[above].isAnchor { return .anchored(item: items[above].id, line: rows) }
            above -= 1
        }
        return .bottom
    }

    /// The item id of a message.
    public static func itemID(ofMessage id: String) -> String { "m:\(id)" }
}
