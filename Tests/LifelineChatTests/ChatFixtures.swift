import Foundation
import LifelineChat
import LifelineStoatStore
import LifelineTerminal
import Testing

/// The values the screens' tests draw: a fixed clock, a channel with people talking, each lifecycle state's
/// presentation as the session machine gives it.
enum ChatFixtures {
    /// 2025-06-15 15:06:40 UTC.
    static let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let utc = TimeZone(identifier: "UTC")!
    static let small = TerminalSize(columns: 80, rows: 24)
    static let large = TerminalSize(columns: 200, rows: 60)
    static let me = "01JXME00000000000000000000"

    /// A ULID at `seconds` after ``now`` (negative: before), its random part from `serial`.
    static func ulid(_ seconds: Double, serial: Int = 0) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        var milliseconds = UInt64((now.timeIntervalSince1970 + seconds) * 1000)
        var time = ""
        for _ in 0..<10 {
            time.insert(alphabet[Int(milliseconds % 32)], at: time.startIndex)
            milliseconds /= 32
        }
        var random = UInt64(serial)
        var tail = ""
        for _ in 0..<16 {
            tail.insert(alphabet[Int(random % 32)], at: tail.startIndex)
            random /= 32
        }
        return time + tail
    }

    static let channelID = "01JXCH00000000000000000001"
    static let serverID = "01JXSV00000000000000000001"

    static let people = ["ada": "01JXAD00000000000000000000", "grace": "01JXGR00000000000000000000"]

    static func message(
        _ seconds: Double, _ author: String, _ content: String, serial: Int = 0, edited: Bool = false,
        replies: [String]? = nil
    ) -> Message {
        Message(
            id: ulid(seconds, serial: serial), channel: channelID,
            author: people[author] ?? (author == "you" ? me : author),
            content: content, edited: edited ? now : nil, replies: replies)
    }

    static func names(_ messages: [Message]) -> [String: String] {
        var names: [String: String] = [:]
        for message in messages {
            names[message.id] =
                people.first { $0.value == message.author }?.key ?? (message.author == me ? "you" : message.author)
        }
        return names
    }

    static let conversation: [Message] = [
        message(-600, "ada", "good morning, everyone", serial: 1),
        message(-540, "grace", "morning! the build is green again", serial: 2),
        message(-480, "ada", "nice. did the flaky socket test finally go away?", serial: 3, edited: true),
        message(-420, "you", "it did: the heartbeat now waits for the Pong before it counts a failure", serial: 4),
        message(-360, "grace", "🎉🎉 great", serial: 5),
    ]

    static func chats(unread: Bool = true) -> [Chat] {
        [
            Chat(
                id: channelID, kind: .textChannel, name: "general", serverID: serverID, lastActivity: now,
                lastMessage: conversation.last, isUnread: false),
            Chat(
                id: "01JXCH00000000000000000002", kind: .textChannel, name: "random", serverID: serverID,
                lastActivity: now.addingTimeInterval(-900), lastMessage: nil, isUnread: unread, mentionCount: 0),
            Chat(
                id: "01JXCH00000000000000000003", kind: .directMessage, name: "ada",
                lastActivity: now.addingTimeInterval(-1800),
                lastMessage: nil, isUnread: unread, mentionCount: unread ? 2 : 0),
            Chat(
                id: "01JXCH00000000000000000004", kind: .textChannel, name: "chatter",
                serverID: "01JXSV00000000000000000002",
                lastActivity: now.addingTimeInterval(-3600), lastMessage: nil),
        ]
    }

    static let serverNames = [serverID: "Lifeline Lounge", "01JXSV00000000000000000002": "Night Owls"]

    static func channel(
        _ messages: [Message] = conversation, gaps: [HistoryGap] = [], pending: [OutboxEntry] = [],
        typing: [String] = [], isStale: Bool = false, catchUp: ChatCatchUp? = nil, lastRead: String? = nil
    ) -> ChannelView {
        ChannelView(
            id: channelID, messages: messages, gaps: gaps, isStale: isStale, pending: pending, typing: typing,
            catchUp: catchUp, lastRead: lastRead, authorNames: names(messages))
    }

    /// The presentation the session machine gives a state (`SessionMachine.presentation`).
    static func presentation(_ state: SessionState, retry: Duration? = nil) -> Presentation {
        switch state {
        case .ready: Presentation(screen: .login)
        case .loggingIn, .dispose: Presentation(screen: .loading)
        case .onboarding: Presentation(screen: .usernameSelection)
        case .error: Presentation(screen: .permanentError(PermanentError(failure: .permanent(.invalidSession))))
        case .connecting: Presentation(screen: .client, banner: .connecting)
        case .connected: Presentation(screen: .client)
        case .disconnected: Presentation(screen: .client, banner: .disconnected, retryDelay: retry ?? .seconds(4))
        case .reconnecting: Presentation(screen: .client, banner: .reconnecting)
        case .offline: Presentation(screen: .client, banner: .deviceOffline)
        }
    }

    static func snapshot(_ state: SessionState, failures: Int = 0, lastError: SessionError? = nil) -> SessionSnapshot {
        SessionSnapshot(
            state: state, presentation: presentation(state), failures: failures,
            nextRetry: state == .disconnected ? .seconds(4) : nil, lastError: lastError)
    }

    static let socketDropped = SessionError(
        code: .temporaryFailure, message: "the socket closed", cause: TemporaryFailureCause.socketDropped)

    /// A state of the lifecycle as the client shows it, with the general channel open.
    static func state(
        _ session: SessionState, size: TerminalSize = small, channel: ChannelView? = channel(),
        mode: ChatState.Mode = .server,
        signIn: SignInView = SignInView(server: "https://api.stoat.chat")
    ) -> ChatState {
        let failing = session == .disconnected || session == .reconnecting || session == .offline
        var snapshot = snapshot(session, failures: failing ? 2 : 0, lastError: failing ? socketDropped : nil)
        if session == .onboarding { snapshot.lastError = nil }
        let models = ChatModels(
            session: snapshot, retryDate: session == .disconnected ? now.addingTimeInterval(4) : nil,
            currentUserID: me, currentUserName: "you", chats: chats(), serverNames: serverNames, channel: channel,
            signIn: signIn)
        var state = ChatState(models: models, size: size, now: now, timeZone: utc, mode: mode)
        if models.session.presentation.screen == .client, channel != nil { state.openChannel = channelID }
        return state
    }

    static func entry(_ nonce: String, _ text: String, _ state: OutboxEntry.State) -> OutboxEntry {
        OutboxEntry(nonce: nonce, channel: channelID, message: OutgoingMessage(content: text), state: state)
    }
}

/// Compares a screen with its snapshot in `Snapshots/NAME.txt`; with `LIFELINE_RECORD_SNAPSHOTS=1` in the
/// environment it writes the snapshot instead, and fails so that a recording never passes unseen.
func expectSnapshot(
    _ grid: Grid, _ name: String, sourceLocation: SourceLocation = #_sourceLocation, file: String = #filePath
) {
    let directory = URL(fileURLWithPath: file).deletingLastPathComponent().appending(path: "Snapshots")
    let url = directory.appending(path: "\(name).txt")
    let text = grid.description + "\n"
    if ProcessInfo.processInfo.environment["LIFELINE_RECORD_SNAPSHOTS"] == "1" {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? text.write(to: url, atomically: true, encoding: .utf8)
        Issue.record(
            "recorded the snapshot \(name): check it, then run again without LIFELINE_RECORD_SNAPSHOTS",
            sourceLocation: sourceLocation)
        return
    }
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
        Issue.record("no snapshot \(name): record it with LIFELINE_RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation)
        return
    }
    #expect(text == expected, "the screen differs from Snapshots/\(name).txt:\n\(text)", sourceLocation: sourceLocation)
}
