import Foundation
import LifelineChat
import LifelineStoatStore
import LifelineTerminal
import Testing

@Suite("The chat's key reducer")
struct ChatReducerTests {
    typealias F = ChatFixtures

    /// Types each character of `text` as a key.
    static func type(_ text: String, _ state: inout ChatState) -> [ChatEffect] {
        text.flatMap { ChatReducer.reduce(&state, .key(.character($0))) }
    }

    @Test("Ctrl-C and Ctrl-Q quit from every screen", arguments: SessionState.allCases)
    func quit(session: SessionState) {
        for key in [KeyPress.control("c"), .control("q")] {
            var state = F.state(session)
            #expect(ChatReducer.reduce(&state, .key(key)) == [.quit])
        }
    }

    @Test("printable keys always type into the composer, and Enter sends what was typed")
    func typeAndSend() {
        var state = F.state(.connected)
        _ = Self.type("hi 👋🏽 日本", &state)
        #expect(state.composer.text == "hi 👋🏽 日本")
        let effects = ChatReducer.reduce(&state, .key(KeyPress(.enter)))
        #expect(effects.contains(.send(channel: F.channelID, text: "hi 👋🏽 日本", replyTo: nil)))
        #expect(state.composer.isEmpty)
        // Blank text sends nothing.
        _ = Self.type("   ", &state)
        #expect(
            !ChatReducer.reduce(&state, .key(KeyPress(.enter))).contains { if case .send = $0 { true } else { false } })
    }

    @Test("? in an empty composer opens the help; elsewhere it is a character")
    func questionMark() {
        var state = F.state(.connected)
        _ = ChatReducer.reduce(&state, .key(.character("?")))
        #expect(state.overlay == .help)
        #expect(state.composer.isEmpty)
        _ = ChatReducer.reduce(&state, .key(KeyPress(.escape)))
        #expect(state.overlay == nil)
        _ = Self.type("why?", &state)
        #expect(state.composer.text == "why?")
        #expect(state.overlay == nil)
    }

    @Test("Alt-Enter and a multi-line paste put new lines in the composer; Enter sends them all")
    func multiLine() {
        var state = F.state(.connected)
        _ = Self.type("one", &state)
        _ = ChatReducer.reduce(&state, .key(KeyPress(.enter, modifiers: .alt)))
        _ = ChatReducer.reduce(&state, .paste("two\r\nthree"))
        #expect(state.composer.text == "one\ntwo\nthree")
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.enter))).contains(
                .send(channel: F.channelID, text: "one\ntwo\nthree", replyTo: nil)))
    }

    @Test("the composer edits as readline does")
    func readline() {
        var composer = Composer("hello brave world")
        let applied = composer.apply(.control("w"))
        #expect(applied)
        #expect(composer.text == "hello brave ")
        _ = composer.apply(.control("a"))
        _ = composer.apply(.alt("f"))
        #expect(composer.cursor == 5)
        _ = composer.apply(.control("k"))
        #expect(composer.text == "hello")
        _ = composer.apply(.control("y"))
        #expect(composer.text == "hello brave ")
        _ = composer.apply(.control("u"))
        #expect(composer.text.isEmpty)
        composer.insert("ab")
        _ = composer.apply(.control("t"))
        #expect(composer.text == "ba")
        composer = Composer("line one\nline two")
        _ = composer.apply(KeyPress(.up))
        #expect(composer.cursor == 8)
        _ = composer.apply(.control("e"))
        _ = composer.apply(KeyPress(.backspace))
        #expect(composer.text == "line on\nline two")
    }

    @Test("at the start the most recently active chat opens; with no message anywhere, the first server's first")
    func firstChat() {
        var state = F.state(.connected, channel: nil)
        state.openChannel = nil
        #expect(ChatReducer.reduce(&state, .models(state.models)) == [.open(channel: F.channelID)])
        var quiet = F.chats()
        for index in quiet.indices { quiet[index].lastMessage = nil }
        let dmFirst = [quiet[2], quiet[3], quiet[0]]
        #expect(ChatReducer.firstChat(dmFirst)?.id == quiet[3].id)
    }

    @Test(
        "a chat opened before any last message was known gives way to the first chat whose last message arrives, unless the person acted"
    )
    func provisionalFirstChat() {
        // Ready named the chats, but not their last messages (stoatchat commits `last_message_id` late): the
        // first server's first channel, #random here, is opened for now.
        var early = F.chats()
        for index in early.indices { early[index].lastMessage = nil }
        let random = early[1]
        let known = F.chats()
        for acts in [false, true] {
            var state = F.state(.connected, channel: nil)
            state.openChannel = nil
            var models = state.models
            models.chats = [random] + early.filter { $0.id != random.id }
            #expect(ChatReducer.reduce(&state, .models(models)) == [.open(channel: random.id)])
            if acts { _ = ChatReducer.reduce(&state, .key(.character("h"))) }
            // The catch-up finds #general's last message: it is the most recently active chat.
            models.chats = known
            let effects = ChatReducer.reduce(&state, .models(models))
            #expect(effects == (acts ? [] : [.open(channel: F.channelID)]), "acted: \(acts)")
            // Settled: later changes of the list open nothing by themselves.
            models.chats = [known[1], known[0]] + known.dropFirst(2)
            models.chats[0].lastMessage = known[0].lastMessage
            #expect(ChatReducer.reduce(&state, .models(models)).isEmpty)
        }
    }

    @Test("Ctrl-N opens the next unread chat, Alt-↓ the next chat")
    func chats() {
        var state = F.state(.connected)
        #expect(ChatReducer.reduce(&state, .key(.control("n"))) == [.open(channel: "01JXCH00000000000000000002")])
        #expect(ChatReducer.reduce(&state, .key(.control("n"))) == [.open(channel: "01JXCH00000000000000000003")])
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.down, modifiers: .alt))) == [
                .open(channel: "01JXCH00000000000000000004")
            ])
        state.models.chats = F.chats(unread: false)
        #expect(ChatReducer.reduce(&state, .key(.control("n"))).isEmpty)
    }

    @Test("a click on the chat list opens the chat under it")
    func click() {
        var state = F.state(.connected)
        // Row 1 is the list's heading, row 2 the first chat, row 3 the second.
        #expect(
            ChatReducer.reduce(&state, .mouse(MouseEvent(.press(.left), row: 3, column: 4))) == [
                .open(channel: "01JXCH00000000000000000002")
            ])
        #expect(ChatReducer.reduce(&state, .mouse(MouseEvent(.press(.left), row: 3, column: 60))).isEmpty)
    }

    @Test("F5 connects now only while the session waits; F2 shows the last failure; F10 logs out")
    func sessionKeys() {
        for session in SessionState.allCases.filter(\.isLoggedIn) {
            var state = F.state(session)
            let effects = ChatReducer.reduce(&state, .key(KeyPress(.function(5))))
            #expect(effects == (session == .disconnected || session == .offline ? [.connectNow] : []))
        }
        var state = F.state(.connected)
        _ = ChatReducer.reduce(&state, .key(KeyPress(.function(2))))
        #expect(state.overlay == .lastFailure)
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.function(10)))) == [.logOut])
    }

    @Test("a failed send is sent again with F7 and discarded with F8")
    func resendDiscard() {
        let failed = F.entry("N9", "no", .failed(OutboxEntry.Failure(code: .api(.missingPermission), message: "no")))
        var state = F.state(
            .connected, channel: F.channel(pending: [F.entry("N8", "later", .queued(retryAfter: nil)), failed]))
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.function(7)))) == [.resend(nonce: "N9")])
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.function(8)))) == [.discard(nonce: "N9")])
        // A selected queued entry is discarded by F8 too.
        _ = ChatReducer.reduce(&state, .key(KeyPress(.up, modifiers: .control)))
        _ = ChatReducer.reduce(&state, .key(KeyPress(.up, modifiers: .control)))
        #expect(state.selection == "p:N8")
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.function(8)))) == [.discard(nonce: "N8")])
    }

    @Test("Alt-R replies to the selected message, and the send carries it")
    func reply() {
        var state = F.state(.connected)
        _ = ChatReducer.reduce(&state, .key(KeyPress(.up, modifiers: .control)))
        _ = ChatReducer.reduce(&state, .key(KeyPress(.up, modifiers: .control)))
        #expect(state.selection == "m:\(F.conversation[3].id)")
        _ = ChatReducer.reduce(&state, .key(.alt("r")))
        #expect(state.replyTo == F.conversation[3].id)
        #expect(ChatScreen.render(state, size: F.small).description.contains("↳ replying to you"))
        _ = Self.type("agreed", &state)
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.enter))).contains(
                .send(channel: F.channelID, text: "agreed", replyTo: F.conversation[3].id)))
        #expect(state.replyTo == nil)
    }

    @Test("typing is sent once per interval while the user types")
    func typing() {
        var state = F.state(.connected)
        #expect(ChatReducer.reduce(&state, .key(.character("a"))) == [.typing(channel: F.channelID)])
        #expect(ChatReducer.reduce(&state, .key(.character("b"))).isEmpty)
        _ = ChatReducer.reduce(&state, .tick(F.now.addingTimeInterval(3.5)))
        #expect(ChatReducer.reduce(&state, .key(.character("c"))) == [.typing(channel: F.channelID)])
        // Not while the session is down.
        var down = F.state(.disconnected)
        #expect(ChatReducer.reduce(&down, .key(.character("a"))).isEmpty)
    }

    /// A channel of `count` messages, one a minute.
    static func longChannel(_ count: Int) -> ChannelView {
        let messages = (0..<count).map {
            F.message(Double($0 - count) * 60, $0 % 2 == 0 ? "ada" : "grace", "message \($0)", serial: $0)
        }
        return F.channel(messages)
    }

    @Test("PgUp scrolls back and loads older messages at the top; the view stays put while messages arrive")
    func scrollback() {
        var state = F.state(.connected, channel: Self.longChannel(40))
        state.models.chats[0].isUnread = false
        _ = ChatReducer.reduce(&state, .tick(F.now))
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.pageUp))).isEmpty)
        guard case .anchored = state.scroll else {
            Issue.record("PgUp left the view at the bottom")
            return
        }
        let before = ChatScreen.render(state, size: F.small)
        #expect(!before.description.contains("new messages below"))
        // A message arrives while scrolled up: the rows shown stay, and the hint says there is more below.
        var models = state.models
        let grown = Self.longChannel(40).messages + [F.message(1, "ada", "a new one", serial: 99)]
        models.channel = F.channel(grown)
        _ = ChatReducer.reduce(&state, .models(models))
        let after = ChatScreen.render(state, size: F.small)
        let layout = ClientLayout(state)
        for row in layout.timelineRows.dropLast() { #expect(before.text(row: row) == after.text(row: row)) }
        #expect(after.text(row: layout.timelineRows.upperBound - 1).contains("new messages below"))
        // Up to the top: PgUp there asks for the page before.
        var effects: [ChatEffect] = []
        for _ in 0..<20 { effects += ChatReducer.reduce(&state, .key(KeyPress(.pageUp))) }
        #expect(effects.contains(.loadOlder(channel: F.channelID)))
        // Down again: at the bottom the view follows new messages, and the hint is gone.
        for _ in 0..<30 { _ = ChatReducer.reduce(&state, .key(KeyPress(.pageDown))) }
        #expect(state.scroll == .bottom)
        #expect(!ChatScreen.render(state, size: F.small).description.contains("new messages below"))
    }

    @Test("an older page loaded above keeps the rows on screen where they were")
    func olderPageAbove() {
        var state = F.state(.connected, channel: Self.longChannel(80))
        for _ in 0..<2 { _ = ChatReducer.reduce(&state, .key(KeyPress(.pageUp))) }
        let before = ChatScreen.render(state, size: F.small)
        #expect(!before.description.contains("PgUp: older messages"))
        var models = state.models
        let older = (0..<30).map { F.message(Double($0 - 100) * 60, "ada", "older \($0)", serial: 200 + $0) }
        models.channel = F.channel(older + (models.channel?.messages ?? []))
        _ = ChatReducer.reduce(&state, .models(models))
        let after = ChatScreen.render(state, size: F.small)
        for row in ClientLayout(state).timelineRows { #expect(before.text(row: row) == after.text(row: row)) }
    }

    @Test("the channel is acknowledged once its newest message has been on screen, and only then")
    func acknowledge() {
        var state = F.state(.connected, channel: Self.longChannel(40))
        state.models.chats[0].isUnread = true
        let newest = Self.longChannel(40).messages.last!.id
        #expect(ChatReducer.reduce(&state, .tick(F.now)) == [.ack(channel: F.channelID, message: newest)])
        #expect(ChatReducer.reduce(&state, .tick(F.now)).isEmpty)
        // Scrolled away, a newer message is not acknowledged until it is seen.
        _ = ChatReducer.reduce(&state, .key(KeyPress(.pageUp)))
        var models = state.models
        let message = F.message(2, "ada", "unseen", serial: 300)
        models.channel?.messages.append(message)
        _ = ChatReducer.reduce(&state, .models(models))
        #expect(ChatReducer.reduce(&state, .tick(F.now)).isEmpty)
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.escape))) == [.ack(channel: F.channelID, message: message.id)])
        // Not while the session is down: the acknowledgement would go nowhere.
        var down = F.state(.disconnected, channel: Self.longChannel(5))
        down.models.chats[0].isUnread = true
        #expect(ChatReducer.reduce(&down, .tick(F.now)).isEmpty)
    }

    @Test("after a logout the login form is empty but the email; the demo world's shown password is filled in again")
    func loginAfterLogout() {
        for mode in [ChatState.Mode.demo, .server] {
            var state = F.state(.connected, mode: mode)
            state.loginPassword = mode == .demo ? "lifeline-demo" : ""
            state.login.password = Composer("typed before")
            var models = state.models
            models.session = F.snapshot(.ready)
            _ = ChatReducer.reduce(&state, .models(models))
            #expect(state.login.password.text == (mode == .demo ? "lifeline-demo" : ""))
            #expect(state.openChannel == nil)
        }
    }

    @Test("the login form: fields, the stored account picker, the second factor")
    func login() {
        var state = F.state(.ready)
        _ = Self.type("you@example.com", &state)
        _ = ChatReducer.reduce(&state, .key(KeyPress(.tab)))
        _ = Self.type("pässword", &state)
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.enter))) == [
                .signIn(email: "you@example.com", password: "pässword")
            ])
        #expect(state.login.password.isEmpty)

        let accounts = [
            StoredAccount(id: "A1", label: "you", lastModified: nil),
            StoredAccount(id: "A2", label: "work", lastModified: nil),
        ]
        var picker = F.state(.ready, signIn: SignInView(accounts: accounts))
        #expect(picker.login.focus == .account)
        _ = ChatReducer.reduce(&picker, .key(KeyPress(.down)))
        _ = Self.type("pw", &picker)
        #expect(picker.login.focus == .password)
        #expect(ChatReducer.reduce(&picker, .key(KeyPress(.enter))) == [.signInStored(account: "A2", password: "pw")])

        var code = F.state(.ready)
        var models = code.models
        models.signIn.secondFactor = ["totp"]
        _ = ChatReducer.reduce(&code, .models(models))
        #expect(code.login.focus == .code)
        _ = Self.type("123456", &code)
        #expect(ChatReducer.reduce(&code, .key(KeyPress(.enter))) == [.submitCode("123456")])
    }

    @Test("onboarding takes a username or cancels; the error is dismissed with Enter")
    func onboardingAndError() {
        var state = F.state(.onboarding)
        _ = Self.type("new_user", &state)
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.enter))) == [.submitUsername("new_user")])
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.escape))) == [.cancelOnboarding])
        var error = F.state(.error)
        #expect(ChatReducer.reduce(&error, .key(.character("x"))).isEmpty)
        #expect(ChatReducer.reduce(&error, .key(KeyPress(.enter))) == [.dismissError])
    }

    @Test("the demo world's fault keys inject faults; against a server they do nothing")
    func faultKeys() {
        var demo = F.state(.connected, mode: .demo)
        for fault in DemoFault.allCases {
            #expect(ChatReducer.reduce(&demo, .key(fault.key)) == [.fault(fault)])
        }
        var server = F.state(.connected)
        #expect(ChatReducer.reduce(&server, .key(DemoFault.dropSocket.key)).isEmpty)
        #expect(server.composer.isEmpty)
    }

    @Test("F3 shows the open chat's server's members, and follows the chat")
    func members() {
        var state = F.state(.connected)
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.function(3)))) == [.showMembers(server: F.serverID)])
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.down, modifiers: .alt)))
                == [.open(channel: "01JXCH00000000000000000002"), .showMembers(server: F.serverID)])
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.function(3)))) == [.showMembers(server: nil)])
    }
}
