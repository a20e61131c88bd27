import Foundation
import LifelineChat
import LifelineStoat
import LifelineTerminal

/// `chat-frame`: what an incoming message costs `lifeline chat` on a 200×60 screen with an open channel of
/// 1 000 messages, against a full repaint of the same screen, in the same run.
///
/// - `chat-frame-bytes`: the bytes written for the new message's frame (the timeline scrolled by the terminal,
///   then the cells that differ) over the bytes of a full repaint (goal ≤ 0.1).
/// - `chat-frame`: the time to build the frame and diff it over the time to build it and write a full repaint,
///   both to a buffer (goal ≤ 0.25). The renderer is handed what the builder changed (`FrameChanges`), as
///   `lifeline chat` hands it. The time is the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, both sections run
///   without a suspension point, so on one thread): on a loaded machine the wall clock also counts the time other
///   processes had the core, which swings a ratio of sub-millisecond sections by ±0.1 from run to run.
enum ChatFrameBenchmark {
    static let size = TerminalSize(columns: 200, rows: 60)
    static let channel = "01JXCHANNEL000000000000001"
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    /// The figures of one run: bytes and seconds per frame, incremental and full.
    struct Figures {
        var incrementalBytes = 0.0
        var fullBytes = 0.0
        var incrementalSeconds = 0.0
        var fullSeconds = 0.0
    }

    @Sendable
    static func runBytes(quick: Bool) async throws -> BenchmarkResult {
        let figures = await measure(frames: quick ? 50 : 200)
        return BenchmarkResult(
            name: "chat-frame-bytes", unit: "bytes/frame", lifeline: figures.incrementalBytes,
            baseline: figures.fullBytes, goal: .ratioAtMost(0.1),
            detail: "a new message vs a full repaint, 200×60, 1 000 messages")
    }

    @Sendable
    static func runTime(quick: Bool) async throws -> BenchmarkResult {
        let figures = await measure(frames: quick ? 50 : 200)
        return BenchmarkResult(
            name: "chat-frame", unit: "µs/frame", lifeline: figures.incrementalSeconds * 1e6,
            baseline: figures.fullSeconds * 1e6, goal: .ratioAtMost(0.25),
            detail: "build + diff vs build + full repaint, to a buffer")
    }

    /// A message as the simulated channel has it: its id a ULID at `index` seconds after the start.
    static func message(_ index: Int) -> Message {
        let texts = [
            "short", "a somewhat longer line that says a little more than the short one does",
            "日本語のメッセージ、全角で二列ずつ", "👍🏽 👨‍👩‍👧‍👦 ok",
            "a long message that wraps over two or three rows of the timeline, as long messages in a busy channel do, "
                + "with enough words to make the layout work for its living",
        ]
        return Message(
            id: ulid(index), channel: channel, author: "USER\(index % 7)", content: texts[index % texts.count])
    }

    static func ulid(_ index: Int) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        var milliseconds = UInt64(start.timeIntervalSince1970 * 1000) + UInt64(index) * 1000
        var random = UInt64(index)
        var text = ""
        for _ in 0..<16 {
            text.insert(alphabet[Int(random % 32)], at: text.startIndex)
            random /= 32
        }
        for _ in 0..<10 {
            text.insert(alphabet[Int(milliseconds % 32)], at: text.startIndex)
            milliseconds /= 32
        }
        return text
    }

    static func state(messages: [Message]) -> ChatState {
        var names: [String: String] = [:]
        for message in messages { names[message.id] = "person \(message.author.suffix(1))" }
        var chats: [Chat] = []
        for index in 0..<30 {
            let id: String = index == 0 ? channel : "CHAT\(index)"
            let activity: Date = start.addingTimeInterval(-Double(index) * 60)
            let last: Message? = index == 0 ? messages.last : nil
            chats.append(
                Chat(
                    id: id, kind: .textChannel, name: "channel-\(index)", serverID: "SERVER", lastActivity: activity,
                    lastMessage: last, isUnread: index % 3 == 0))
        }
        let models = ChatModels(
            session: SessionSnapshot(state: .connected, presentation: Presentation(screen: .client), failures: 0),
            currentUserID: "USER0", currentUserName: "you", chats: chats, serverNames: ["SERVER": "Bench"],
            channel: ChannelView(id: channel, messages: messages, isStale: false, authorNames: names))
        var state = ChatState(
            models: models, size: size, now: start, timeZone: TimeZone(identifier: "UTC")!, mode: .server)
        state.openChannel = channel
        return state
    }

    static func cursor(_ state: ChatState) -> Cursor {
        ChatScreen.cursor(state, size: size).map { Cursor.at(row: $0.row, column: $0.column) } ?? .hidden
    }

    /// The calling thread's CPU time, in seconds.
    static func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func measure(frames: Int) async -> Figures {
        var messages = (0..<1_000).map(message)
        var state = state(messages: messages)
        var builder = ChatFrameBuilder()
        var renderer = Renderer(showing: builder.render(state, size: size))
        var baseline = Renderer()
        var bytes: [UInt8] = []
        var repaint: [UInt8] = []
        var figures = Figures()
        var incremental = 0.0
        var full = 0.0
        var incrementalBytes = 0
        var fullBytes = 0
        for frame in 0..<frames {
            // A message arrives: the models change, the reducer takes them, the frame is built and diffed.
            messages.removeFirst()
            messages.append(message(1_000 + frame))
            var models = state.models
            models.channel?.messages = messages
            models.channel?.authorNames[messages.last!.id] = "person \(frame % 7)"
            models.chats[0].lastMessage = messages.last
            // As `lifeline chat` does, the models' values the state held are released after the frame, not while
            // it is built (`ChatDriver`).
            let retired = state.models
            let began = threadCPUTime()
            _ = ChatReducer.reduce(&state, .models(models))
            let grid = builder.render(state, size: size)
            bytes.removeAll(keepingCapacity: true)
            renderer.render(grid, cursor: cursor(state), changes: builder.changes, into: &bytes)
            incremental += threadCPUTime() - began
            withExtendedLifetime(retired) {}
            incrementalBytes += bytes.count
            // The baseline: the same frame built from nothing and written whole, as after a resize.
            let baselineStart = threadCPUTime()
            let again = ChatScreen.render(state, size: size)
            repaint.removeAll(keepingCapacity: true)
            baseline.repaint(again, cursor: cursor(state), into: &repaint)
            full += threadCPUTime() - baselineStart
            fullBytes += repaint.count
            if frame % 16 == 0 { await Task.yield() }
        }
        figures.incrementalBytes = Double(incrementalBytes) / Double(frames)
        figures.fullBytes = Double(fullBytes) / Double(frames)
        figures.incrementalSeconds = incremental / Double(frames)
        figures.fullSeconds = full / Double(frames)
        return figures
    }
}
