import Foundation
import LifelineChat
import LifelineStoatStore
import LifelineTerminal
import Testing

@Suite("Chat screens as text snapshots")
struct ChatScreenSnapshotTests {
    typealias F = ChatFixtures

    static let sizes = [F.small, F.large]

    static func name(_ size: TerminalSize) -> String { "\(size.columns)x\(size.rows)" }

    @Test("every state of the lifecycle has its screen, at 80×24 and 200×60", arguments: SessionState.allCases, sizes)
    func lifecycle(state: SessionState, size: TerminalSize) {
        let grid = ChatScreen.render(F.state(state, size: size), size: size)
        expectSnapshot(grid, "state-\(state.rawValue)-\(Self.name(size))")
    }

    @Test("the client's first row names the state", arguments: SessionState.allCases.filter(\.isLoggedIn))
    func statusLineNamesTheState(state: SessionState) {
        let grid = ChatScreen.render(F.state(state), size: F.small)
        let first = grid.text(row: 0)
        switch state {
        case .connected: #expect(first.contains("Connected"))
        case .disconnected: #expect(first.contains("Disconnected — retry in 4 s"))
        case .connecting: #expect(first.contains("Connecting"))
        case .reconnecting: #expect(first.contains("Reconnecting"))
        case .offline: #expect(first.contains("Device offline"))
        default: Issue.record("not a logged-in state")
        }
    }

    @Test("the retry countdown ticks with the clock, and the program is told when the text changes next")
    func countdownTicks() {
        var state = F.state(.disconnected)
        #expect(ChatScreen.render(state, size: F.small).text(row: 0).contains("retry in 4 s"))
        #expect(ChatScreen.nextChange(state) == F.now.addingTimeInterval(1))
        _ = ChatReducer.reduce(&state, .tick(F.now.addingTimeInterval(1.25)))
        #expect(ChatScreen.render(state, size: F.small).text(row: 0).contains("retry in 3 s"))
        #expect(ChatScreen.nextChange(state) == F.now.addingTimeInterval(2))
        _ = ChatReducer.reduce(&state, .tick(F.now.addingTimeInterval(4)))
        #expect(ChatScreen.render(state, size: F.small).text(row: 0).contains("retry in 0 s"))
        #expect(ChatScreen.nextChange(state) == nil)
    }

    @Test("while CONNECTED no text of the client's own says disconnect, reconnect or retry", arguments: sizes)
    func connectedWording(size: TerminalSize) {
        let failed = F.entry("N1", "hello", .failed(OutboxEntry.Failure(code: .api(.missingPermission), message: "no")))
        var screens: [ChatState] = []
        for mode in [ChatState.Mode.demo, .server] {
            var state = F.state(.connected, size: size, channel: F.channel(pending: [failed]), mode: mode)
            state.models.session.lastError = F.socketDropped
            state.models.lastFailure = F.socketDropped
            screens.append(state)
            state.overlay = .help
            screens.append(state)
            state.overlay = .lastFailure
            screens.append(state)
        }
        for state in screens {
            let text = ChatScreen.render(state, size: size).description.lowercased()
            for word in ["disconnect", "reconnect", "retry"] {
                #expect(!text.contains(word), "\(word) on a CONNECTED screen:\n\(text)")
            }
        }
        // The same keys outside CONNECTED do say it: the check above is not vacuous.
        var down = F.state(.disconnected, size: size, mode: .demo)
        down.overlay = .help
        #expect(ChatScreen.render(down, size: size).description.contains("reconnect now"))
    }

    @Test("the login screen with stored accounts, a refused login and its support link", arguments: sizes)
    func loginRefused(size: TerminalSize) {
        let accounts = [
            StoredAccount(
                id: "A1", label: "you", server: ServerIdentity("https://api.stoat.chat"), lastModified: F.now),
            StoredAccount(id: "A2", label: "work", server: ServerIdentity("https://api.stoat.chat"), lastModified: nil),
        ]
        var state = F.state(
            .ready, size: size, signIn: SignInView(accounts: accounts, server: "https://api.stoat.chat"))
        state.models.session.presentation.notice = .loginFailed(
            LoginFailure(
                code: LoginFailure.Code(rawValue: "BlockedByShield"), message: "The login was blocked by Shield.",
                supportURL: "https://support.stoat.chat/shield"))
        state.login = ChatState.LoginForm(focus: .account)
        let grid = ChatScreen.render(state, size: size)
        expectSnapshot(grid, "login-refused-\(Self.name(size))")
        #expect(grid.description.contains("Support: https://support.stoat.chat/shield"))
    }

    @Test("the login screen asks for a second factor", arguments: sizes)
    func secondFactor(size: TerminalSize) {
        var state = F.state(
            .ready, size: size,
            signIn: SignInView(secondFactor: ["totp", "recoveryCode"], server: "https://api.stoat.chat"))
        state.login = ChatState.LoginForm(email: "you@example.com", focus: .code)
        state.login.password = Composer("secret")
        state.login.code = Composer("123")
        let grid = ChatScreen.render(state, size: size)
        expectSnapshot(grid, "login-second-factor-\(Self.name(size))")
        #expect(grid.description.contains("second factor (totp, recoveryCode)"))
        #expect(!grid.description.contains("secret"))
    }

    @Test("the error screen's text is tailored to each standing", arguments: AccountStanding.allCases)
    func errorPerStanding(standing: AccountStanding) {
        var state = F.state(.error)
        state.models.session.presentation = Presentation(
            screen: .permanentError(PermanentError(failure: .permanent(.invalidSession), standing: standing)))
        let grid = ChatScreen.render(state, size: F.small)
        expectSnapshot(grid, "error-\(standing.rawValue)-80x24")
        #expect(grid.description.contains(standing.message))
        #expect(grid.description.contains("Enter: dismiss"))
    }

    @Test("gaps show as rows, with the stale marker, the catch-up marker and the unread divider", arguments: sizes)
    func gaps(size: TerminalSize) {
        let messages = F.conversation
        let gap = HistoryGap(after: messages[1].id, before: messages[2].id)
        let channel = F.channel(
            messages, gaps: [gap], isStale: true, catchUp: ChatCatchUp(messages: 2, oldestFound: messages[3].id),
            lastRead: messages[1].id)
        let grid = ChatScreen.render(F.state(.connected, size: size, channel: channel), size: size)
        expectSnapshot(grid, "gaps-\(Self.name(size))")
        let text = grid.description
        #expect(text.contains("history not loaded here"))
        #expect(text.contains("caught up: 2 messages"))
        #expect(text.contains("new messages"))
        #expect(text.contains("updating: may miss messages"))
    }

    @Test("pending and failed sends show their state, reasons and keys", arguments: sizes)
    func pendingAndFailed(size: TerminalSize) {
        let pending = [
            F.entry("N1", "on its way", .sending),
            F.entry("N2", "waiting for the connection", .queued(retryAfter: nil)),
            F.entry("N3", "waiting out the slowmode", .queued(retryAfter: .seconds(7))),
            F.entry(
                "N4", "this one was refused",
                .failed(OutboxEntry.Failure(code: .api(.missingPermission), message: "you may not send here"))),
        ]
        let grid = ChatScreen.render(F.state(.connected, size: size, channel: F.channel(pending: pending)), size: size)
        expectSnapshot(grid, "pending-\(Self.name(size))")
        let text = grid.description
        #expect(text.contains("sending…"))
        #expect(text.contains("queued · slowmode 7 s"))
        #expect(text.contains("not sent: you may not send here (MissingPermission)"))
        #expect(text.contains("F7 resend"))
    }

    @Test("wide characters and emoji take their columns", arguments: sizes)
    func wideAndEmoji(size: TerminalSize) {
        let messages = [
            F.message(-120, "ada", "日本語のメッセージ、全角で二列ずつ", serial: 11),
            F.message(-60, "grace", "👍🏽 👨‍👩‍👧‍👦 🫨 🇯🇵 ok", serial: 12),
        ]
        let grid = ChatScreen.render(F.state(.connected, size: size, channel: F.channel(messages)), size: size)
        expectSnapshot(grid, "wide-\(Self.name(size))")
        #expect(grid.description.contains("日本語のメッセージ"))
        #expect(grid.description.contains("👍🏽 👨‍👩‍👧‍👦 🫨 🇯🇵 ok"))
    }

    @Test("a message with escape sequences and bidi overrides leaves the layout intact", arguments: sizes)
    func hostileText(size: TerminalSize) {
        let hostile = "\u{1B}[2J\u{1B}]0;pwned\u{07}evil\u{202E}txt.exe\u{2066}\u{1B}[31mred\r\n\u{9B}2Jend"
        let messages = F.conversation + [F.message(-30, "ada", hostile, serial: 13)]
        let state = F.state(.connected, size: size, channel: F.channel(messages))
        let grid = ChatScreen.render(state, size: size)
        expectSnapshot(grid, "hostile-\(Self.name(size))")
        let layout = ClientLayout(state)
        for row in 0..<size.rows {
            for column in 0..<size.columns {
                let scalars = grid[row, column].grapheme.unicodeScalars
                #expect(scalars.allSatisfy { VisibleText.replacement(for: $0) == nil }, "a control at \(row),\(column)")
            }
        }
        // The chat list's separator stands in every row below the status line: nothing shifted a row.
        for row in layout.list.rows {
            #expect(grid[row, layout.list.columns.upperBound].grapheme == "│", "row \(row) shifted")
        }
        #expect(grid.description.contains("␛[2J"))
    }

    @Test("below the minimum size the screen says it is too small")
    func tooSmall() {
        let size = TerminalSize(columns: 40, rows: 10)
        let grid = ChatScreen.render(F.state(.connected), size: size)
        expectSnapshot(grid, "too-small-40x10")
        #expect(grid.description.contains("Too small: 40×10."))
    }

    @Test("the help overlay lists the demo world's fault keys and says it is a local demo world")
    func demoHelp() {
        var state = F.state(.connected, mode: .demo)
        state.overlay = .help
        let grid = ChatScreen.render(state, size: F.large)
        expectSnapshot(grid, "help-demo-200x60")
        for fault in DemoFault.allCases {
            #expect(grid.description.contains(fault.summary), "\(fault) missing from the help")
        }
        #expect(grid.text(row: 0).contains("local demo world"))
    }

    @Test("the last failure's cause is one key away")
    func lastFailure() {
        var state = F.state(.disconnected)
        state.overlay = .lastFailure
        let grid = ChatScreen.render(state, size: F.small)
        expectSnapshot(grid, "last-failure-80x24")
        #expect(grid.description.contains("socketDropped"))
        #expect(grid.text(row: 0).contains("F2 why"))
    }

    @Test("after the session recovers, F2 still shows the last failure's cause and when it came")
    func lastFailureAfterRecovery() {
        var state = F.state(.connected)
        #expect(state.models.session.lastError == nil)
        #expect(!ChatScreen.render(state, size: F.small).text(row: 0).contains("F2 why"))
        state.models.lastFailure = F.socketDropped
        state.models.lastFailureDate = F.now.addingTimeInterval(-42)
        state.overlay = .lastFailure
        let grid = ChatScreen.render(state, size: F.small)
        #expect(grid.text(row: 0).contains("F2 why"))
        #expect(grid.description.contains("socketDropped"))
        #expect(grid.description.contains("When: 42 s ago"))
        #expect(grid.description.contains("The session has been CONNECTED since."))
        #expect(!grid.description.contains("No failure since the session started."))
    }
}
