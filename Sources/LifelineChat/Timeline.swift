public import LifelineStoatStore
import LifelineTerminal
import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The open channel's timeline as rows: its items (messages, gaps, markers, pending sends) in order, each laid out
/// in the timeline's width, and the window of them a scroll position shows.
///
/// Nothing is done per message of the channel: the items are a view of the channel's messages (ordered by id)
/// with the few markers placed among them by binary search, an item is made when it is read, and only the items
/// a window shows are laid out — a message's rows once, kept in a small cache keyed by the message, the width and
/// the author's name — so a channel of thousands of messages costs a screenful, and a new message costs its own
/// rows.
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

    /// The items, oldest first: the top, the messages with the gaps and markers among them, the pending sends.
    ///
    /// A view of the channel: each item is made when it is read.
    public struct Items: RandomAccessCollection, Sendable {
        fileprivate let channel: ChannelView
        /// The markers among the messages, in order: each stands before the message at `before` (the count:
        /// after the last).
        fileprivate let markers: [(before: Int, kind: Item.Kind, id: String)]
        fileprivate let top: Item.Kind

        /// The first item's index (0).
        public var startIndex: Int { 0 }
        /// One past the last item's index.
        public var endIndex: Int { 1 + channel.messages.count + markers.count + channel.pending.count }

        /// The item at `index`.
        public subscript(index: Int) -> Item {
            if index == 0 { return Item(id: "top", kind: top) }
            switch place(of: index - 1) {
            case .message(let position):
                let message = channel.messages[position]
                return Item(id: "m:\(message.id)", kind: .message(message))
            case .marker(let number):
                return Item(id: markers[number].id, kind: markers[number].kind)
            case .pending(let number):
                let entry = channel.pending[number]
                return Item(id: "p:\(entry.nonce)", kind: .pending(entry))
            }
        }

        fileprivate enum Place {
            case message(Int)
            case marker(Int)
            case pending(Int)
        }

        /// What stands at a position after the top: a message, a marker or a pending send.
        fileprivate func place(of position: Int) -> Place {
            for (number, marker) in markers.enumerated() {
                let at = marker.before + number
                if position == at { return .marker(number) }
                if position < at { return .message(position - number) }
            }
            let message = position - markers.count
            if message < channel.messages.count { return .message(message) }
            return .pending(message - channel.messages.count)
        }

        /// The item index of the message at `position` of the channel's messages.
        func index(ofMessageAt position: Int) -> Int {
            1 + position + markers.count { $0.before <= position }
        }
    }

    /// The items, oldest first.
    public let items: Items
    /// The width the rows are laid out in.
    public let width: Int
    private let channel: ChannelView
    private let currentUserID: String?
    private let timeZone: TimeZone
    private let selection: String?
    /// The user's actions not confirmed yet, by the message they act on.
    private let marks: [String: ActionMarks]

    /// What the user's actions not confirmed yet show on a message: an edit or a deletion in force, reactions in
    /// force (their emoji marked pending), and the actions the server refused, with its reason.
    struct ActionMarks: Hashable, Sendable {
        var editing = false
        var deleting = false
        var pendingEmoji: [String] = []
        var failed: [OutboxEntry] = []
    }

    /// The timeline of a channel.
    ///
    /// - Parameters:
    ///   - channel: The channel's values (its messages ordered by id, as the library gives them).
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
        var marks: [String: ActionMarks] = [:]
        for entry in channel.actions {
            guard let target = entry.target else { continue }
            if case .failed = entry.state {
                marks[target, default: ActionMarks()].failed.append(entry)
                continue
            }
            switch entry.kind {
            case .edit: marks[target, default: ActionMarks()].editing = true
            case .delete: marks[target, default: ActionMarks()].deleting = true
            case .react, .unreact:
                if let emoji = entry.emoji { marks[target, default: ActionMarks()].pendingEmoji.append(emoji) }
            case .send: break
            }
        }
        self.marks = marks
        let messages = channel.messages
        /// The first message at or after `start` whose id satisfies `condition` (monotone in the id).
        func first(from start: Int, where condition: (String) -> Bool) -> Int {
            var low = start
            var high = messages.count
            while low < high {
                let middle = (low + high) / 2
                if condition(messages[middle].id) { high = middle } else { low = middle + 1 }
            }
            return low
        }
        var markers: [(before: Int, kind: Item.Kind, id: String)] = []
        // Each gap before the first message past it; a gap not placed holds back the ones after it.
        var floor = 0
        for gap in channel.gaps.sorted(by: { $0.after < $1.after }) {
            floor = first(from: floor) { $0 > gap.after && $0 >= gap.before }
            markers.append((floor, .gap(gap), "g:\(gap.after)"))
        }
        if let lastRead = channel.lastRead {
            var position = first(from: 0) { $0 > lastRead }
            while position < messages.count, messages[position].author == currentUserID { position += 1 }
            if position < messages.count { markers.append((position, .unreadDivider, "unread")) }
        }
        // The catch-up marker stands above the oldest message a catch-up brought. One that brought none marks
        // nothing: the first connection's catch-up of a chat just loaded finds nothing new, and a "caught up: 0
        // messages" line would have no place in the history but under the newest message, where it would stay.
        if let catchUp = channel.catchUp, catchUp.messages > 0 {
            let position = catchUp.oldestFound.map { oldest in first(from: 0) { $0 >= oldest } } ?? messages.count
            markers.append((position, .catchUp(catchUp), "caught-up"))
        }
        // In order of place; at one place gaps first, then the divider, then the catch-up (the order appended).
        let ordered = markers.enumerated().sorted { ($0.element.before, $0.offset) < ($1.element.before, $1.offset) }
        items = Items(
            channel: channel, markers: ordered.map(\.element),
            top: .top(reachedStart: channel.reachedStart, isLoading: channel.isLoadingOlder))
    }

    /// The index of the item with `id` (``Item/id``), if the timeline has it: found by binary search for a message,
    /// among the few markers and pending sends otherwise.
    ///
    /// - Parameter id: The item's id (`m:ID`, `g:AFTER`, `p:NONCE`, `top`, `unread`, `caught-up`).
    /// - Returns: Its index in ``items``, or `nil`.
    public func index(ofItem id: String) -> Int? {
        if id == "top" { return 0 }
        if id.hasPrefix("m:") {
            let target = String(id.dropFirst(2))
            let messages = channel.messages
            var low = 0
            var high = messages.count
            while low < high {
                let middle = (low + high) / 2
                if messages[middle].id < target { low = middle + 1 } else { high = middle }
            }
            if low < messages.count, messages[low].id == target { return items.index(ofMessageAt: low) }
            // Not in id order (it should be): look through them all.
            return messages.firstIndex { $0.id == target }.map { items.index(ofMessageAt: $0) }
        }
        if id.hasPrefix("p:") {
            guard let number = channel.pending.firstIndex(where: { "p:\($0.nonce)" == id }) else { return nil }
            return items.endIndex - channel.pending.count + number
        }
        guard let number = items.markers.firstIndex(where: { $0.id == id }) else { return nil }
        return 1 + items.markers[number].before + number
    }

    /// The item index of the channel's newest message, if it has one.
    public var newestMessageIndex: Int? {
        channel.messages.isEmpty ? nil : items.index(ofMessageAt: channel.messages.count - 1)
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
            rows = cachedMessageRows(message)
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

    /// `HH:MM` of a message's id in the timeline's time zone.
    private func time(of message: Message) -> String {
        guard let date = ULID.date(of: message.id) else { return "--:--" }
        let local = Int(date.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: date)
        let minutes = ((local / 60) % 1440 + 1440) % 1440
        let hour = minutes / 60
        let minute = minutes % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    /// The message with `id`, if the channel has it (its messages are ordered by id).
    private func message(withID id: String) -> Message? {
        guard let index = index(ofItem: "m:" + id), case .message(let message) = items[index].kind else { return nil }
        return message
    }

    /// What a message's rows depend on: the message, the width, the author's name as shown, whether it is the
    /// user's, the quoted message's line, the time zone.
    private struct RowKey: Hashable {
        var message: Message
        var width: Int
        var name: String
        var isSelf: Bool
        var quote: String?
        var timeZone: String
        var marks: ActionMarks?

        func hash(into hasher: inout Hasher) {
            // The id and the width tell most keys apart; equality compares the rest (an edit, a new name).
            hasher.combine(message.id)
            hasher.combine(width)
        }
    }

    /// Messages' laid-out rows, kept across frames: a new frame lays out only the messages it has not shown. Bounded:
    /// emptied when it grows past ``rowCacheLimit`` entries.
    private static let rowCache = Mutex<[RowKey: [[Span]]]>([:])
    static let rowCacheLimit = 4096

    /// What a message's rows read besides the message itself: its author's shown name and its quote line.
    struct RowContext: Equatable, Sendable {
        var name: String
        var quote: String?
        var marks: ActionMarks?
    }

    /// What the user's actions not confirmed yet show on a message, if any (no lookup when there are none).
    private func marks(of message: Message) -> ActionMarks? {
        marks.isEmpty ? nil : marks[message.id]
    }

    /// The name, the quote and the actions' marks a message's rows show now.
    func rowKey(of message: Message) -> RowContext {
        RowContext(name: name(of: message), quote: quote(of: message), marks: marks(of: message))
    }

    /// The line quoting the message `message` replies to, if it replies.
    private func quote(of message: Message) -> String? {
        message.replies?.first.map { replied in
            self.message(withID: replied).map { "↳ \(name(of: $0)): \($0.content ?? "")" }
                ?? "↳ a reply to a message not shown here"
        }
    }

    private func cachedMessageRows(_ message: Message) -> [[Span]] {
        let quote = quote(of: message)
        let key = RowKey(
            message: message, width: width, name: name(of: message), isSelf: message.author == currentUserID,
            quote: quote, timeZone: timeZone.identifier, marks: marks(of: message))
        if let rows = Self.rowCache.withLock({ $0[key] }) { return rows }
        let rows = messageRows(message, quote: quote, marks: marks(of: message) ?? ActionMarks())
        Self.rowCache.withLock { cache in
            if cache.count >= Self.rowCacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = rows
        }
        return rows
    }

    private func messageRows(_ message: Message, quote: String?, marks: ActionMarks) -> [[Span]] {
        var rows: [[Span]] = []
        let textWidth = max(1, width - Self.indent)
        if let text = quote {
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
        let edited =
            marks.deleting ? " (deleting…)" : marks.editing ? " (editing…)" : message.edited != nil ? " (edited)" : ""
        let editedStyle = marks.deleting || marks.editing ? ChatStyle.pending : ChatStyle.dim
        var bodyStyle = TextStyle.plain
        if marks.deleting { bodyStyle.attributes.insert(.strikethrough) }
        for (number, line) in lines.enumerated() {
            var row: [Span]
            if number == 0 {
                row = [
                    Span(time(of: message) + " ", ChatStyle.dim),
                    Span(
                        TextLayout.truncate(author, width: authorWidth),
                        ChatStyle.author(message.author, isSelf: isSelf)),
                ]
                row += marks.deleting ? [Span(" "), Span(line, bodyStyle)] : [Span(" " + line)]
            } else {
                row = [Span(String(repeating: " ", count: Self.indent)), Span(line, bodyStyle)]
            }
            if number == lines.count - 1, !edited.isEmpty {
                let used = row.reduce(0) { $0 + TextLayout.columns(of: $1.text) }
                if used + edited.count <= width {
                    row.append(Span(edited, editedStyle))
                } else {
                    rows.append(row)
                    row = [
                        Span(String(repeating: " ", count: Self.indent)),
                        Span(edited.dropFirst().description, editedStyle),
                    ]
                }
            }
            rows.append(row)
        }
        if let reactions = message.reactions, !reactions.isEmpty {
            // A reaction not confirmed yet is marked with an ellipsis.
            let text = reactions.keys.sorted().map { emoji in
                "\(emoji) \(reactions[emoji]?.count ?? 0)\(marks.pendingEmoji.contains(emoji) ? "…" : "")"
            }.joined(separator: "  ")
            rows.append([
                Span(String(repeating: " ", count: Self.indent)),
                Span(TextLayout.truncate(text, width: textWidth), ChatStyle.dim),
            ])
        }
        for entry in marks.failed {
            guard case .failed(let failure) = entry.state else { continue }
            let what =
                switch entry.kind {
                case .edit: "edit not saved"
                case .delete: "not deleted"
                case .react: "reaction \(entry.emoji ?? "") not added"
                case .unreact: "reaction \(entry.emoji ?? "") not taken back"
                case .send: "not sent"
                }
            let text = "✗ \(what): \(failure.message) · F7 again · F8 dismiss"
            for line in TextLayout.wrap(text, width: textWidth) {
                rows.append([Span(String(repeating: " ", count: Self.indent)), Span(line, ChatStyle.failed)])
            }
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
        if !entry.files.isEmpty {
            // The files a send uploads, and how far while one uploads.
            var files = "📎 " + entry.files.map(\.filename).joined(separator: ", ")
            if let progress = entry.progress, progress.total > 0 {
                files += " · uploading \(min(100, Int(progress.sent * 100 / progress.total)))%"
            }
            for line in TextLayout.wrap(files, width: textWidth) {
                rows.append([Span(String(repeating: " ", count: Self.indent)), Span(line, ChatStyle.pending)])
            }
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
            guard case .anchored(let id, let line) = position, let index = index(ofItem: id)
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

    /// Whether the window a scroll position shows in `height` rows has a row of the channel's newest message.
    ///
    /// At the bottom only the items below the newest message (markers, pending sends) are laid out: it shows
    /// when they take fewer rows than the window. Elsewhere it is the window's answer.
    ///
    /// - Parameters:
    ///   - height: The window's rows.
    ///   - position: The scroll position.
    /// - Returns: Whether the newest message is on screen (`false` when the channel has none).
    public func showsNewestMessage(height: Int, position: ChatState.ScrollPosition) -> Bool {
        guard let newest = newestMessageIndex else { return false }
        guard height > 0, position == .bottom else {
            return window(height: height, position: position).visibleItems.contains(newest)
        }
        var below = 0
        for index in (newest + 1)..<items.count {
            below += rows(of: index).count
            if below >= height { return false }
        }
        return true
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

    /// The bottom window of `height` rows, kept across frames: what a frame builder holds to make the next frame's
    /// window from this one's.
    struct BottomRows: Sendable {
        /// What the rows depend on besides the messages: the same in two timelines, the window can be continued.
        struct Context: Equatable, Sendable {
            var channel: String
            var width: Int
            var height: Int
            var currentUserID: String?
            var timeZone: String
            var selection: String?
            var gaps: [HistoryGap]
            var lastRead: String?
            var catchUp: ChatCatchUp?
            var reachedStart: Bool
            var isLoadingOlder: Bool
            var pending: [OutboxEntry]
        }

        /// The rows, top to bottom (`height` of them).
        var rows: [[Span]]
        var context: Context
        /// The messages the rows show, oldest first, with what their rows read besides the message (its author's
        /// shown name and its quote: ``rowKey(of:)``) and how many of their rows show (the first one's top rows may
        /// be above the window); empty when the window shows anything else (a marker, the top, a pending send):
        /// then it is not continued.
        var messages: ArraySlice<Message>
        var keys: [RowContext]
        var counts: [Int]
    }

    /// The bottom window of `height` rows, made from the last frame's (`previous`) when this timeline is its
    /// channel with messages added at the end (and maybe old ones dropped at the front) and nothing else changed:
    /// the rows of the messages it showed are kept — each message compared with the one it showed, and its
    /// author's name — the new messages laid out and added at the bottom, as many rows dropped at the top. Else
    /// the window is laid out as ``window(height:position:)`` lays out the bottom one. The rows are the same
    /// either way (a test compares them over random changes); this way a new message costs its own rows, not a
    /// lookup of every row of the window.
    ///
    /// - Parameters:
    ///   - height: The window's rows.
    ///   - previous: The last frame's bottom window, if any.
    /// - Returns: The window's rows and what the next frame continues from.
    func bottomRows(height: Int, continuing previous: BottomRows?) -> BottomRows {
        let context = BottomRows.Context(
            channel: channel.id, width: width, height: height, currentUserID: currentUserID,
            timeZone: timeZone.identifier, selection: selection, gaps: channel.gaps, lastRead: channel.lastRead,
            catchUp: channel.catchUp, reachedStart: channel.reachedStart, isLoadingOlder: channel.isLoadingOlder,
            pending: channel.pending)
        if let previous, previous.context == context,
            let continued = continuing(previous, height: height)
        {
            return continued
        }
        let window = window(height: height, position: .bottom)
        var result = BottomRows(rows: window.rows.map(\.spans), context: context, messages: [], keys: [], counts: [])
        // Kept for the next frame only when every row is a message's and the window is full.
        guard window.rows.count == height, height > 0, channel.pending.isEmpty, let first = window.rows.first?.item,
            let firstPosition = messagePosition(ofItem: first)
        else { return result }
        var counts: [Int] = []
        var item = -1
        for row in window.rows {
            if row.item != item {
                guard let position = messagePosition(ofItem: row.item), position == firstPosition + counts.count
                else { return result }
                item = row.item
                counts.append(0)
            }
            counts[counts.count - 1] += 1
        }
        let messages = channel.messages[firstPosition..<(firstPosition + counts.count)]
        result.messages = messages
        result.keys = messages.map { rowKey(of: $0) }
        result.counts = counts
        return result
    }

    /// The window continued from `previous`, or `nil` when it cannot be (see ``bottomRows(height:continuing:)``).
    private func continuing(_ previous: BottomRows, height: Int) -> BottomRows? {
        guard !previous.messages.isEmpty, previous.rows.count == height, let first = previous.messages.first,
            let start = index(ofItem: "m:" + first.id), let position = messagePosition(ofItem: start),
            position + previous.messages.count <= channel.messages.count
        else { return nil }
        // Every marker stands above the window's first message (an item between its messages would be a row).
        guard items.markers.allSatisfy({ $0.before <= position }) else { return nil }
        let shownEnd = position + previous.messages.count
        for (old, (new, key)) in zip(previous.messages, zip(channel.messages[position..<shownEnd], previous.keys)) {
            guard old == new, key == rowKey(of: new) else { return nil }
        }
        let added = channel.messages[shownEnd...]
        if added.isEmpty {
            var same = previous
            same.messages = channel.messages[position..<shownEnd]
            return same
        }
        var rows = previous.rows
        var keys = previous.keys
        var counts = previous.counts
        for (offset, message) in added.enumerated() {
            let laidOut = self.rows(of: items.index(ofMessageAt: shownEnd + offset))
            // A message as tall as the window: laid out whole instead.
            guard laidOut.count < height else { return nil }
            rows += laidOut
            keys.append(rowKey(of: message))
            counts.append(laidOut.count)
        }
        // As many rows off the top as were added at the bottom.
        var excess = rows.count - height
        rows.removeFirst(excess)
        var dropped = 0
        while excess > 0 {
            let take = min(excess, counts[dropped])
            counts[dropped] -= take
            excess -= take
            if counts[dropped] == 0 { dropped += 1 }
        }
        let firstKept = position + dropped
        return BottomRows(
            rows: rows, context: previous.context, messages: channel.messages[firstKept..<channel.messages.count],
            keys: Array(keys.dropFirst(dropped)), counts: Array(counts.dropFirst(dropped)))
    }

    /// The position among the channel's messages of the message at item `index`, if it is one.
    private func messagePosition(ofItem index: Int) -> Int? {
        guard index > 0, index < items.count, case .message(let position) = items.place(of: index - 1) else {
            return nil
        }
        return position
    }

    private func bottomWindow(height: Int, _ rowsOf: (Int) -> [[Span]]) -> Window {
        // The items' rows from the newest up, then put in order (not inserted at the front one item at a time).
        var taken: [(item: Int, rows: ArraySlice<[Span]>)] = []
        var count = 0
        var index = items.count - 1
        var startLine = 0
        while index >= 0, count < height {
            let itemRows = rowsOf(index)
            let take = min(itemRows.count, height - count)
            startLine = itemRows.count - take
            taken.append((index, itemRows.suffix(take)))
            count += take
            if count < height { index -= 1 }
        }
        var rows: [(item: Int, spans: [Span])] = []
        rows.reserveCapacity(count)
        for (item, itemRows) in taken.reversed() {
            for spans in itemRows { rows.append((item, spans)) }
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
