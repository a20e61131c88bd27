import Foundation
import StoatReferenceServer
import Testing

/// `lifeline chat` in a real terminal (tmux) against an in-process reference server: what a person sees and does.
@Suite("lifeline chat in a terminal", .serialized, .hangBound)
struct ChatEndToEndTests {
    @Test(
        "sign in, see the first screen, send a message the server stores, a dropped socket's countdown, back, quit with the terminal restored"
    )
    func session() async throws {
        let server = try await ReferenceServer.start()
        let friend = try await server.addUser(username: "friend")
        try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        try await server.postMessage(as: friend.userID, in: server.lobbyChannelID, content: "hello from the friend")
        let account = server.defaultAccount
        let binary = try Executable.url.path
        try await TmuxTerminal.with(columns: 120, rows: 36, environment: ["LIFELINE_PASSWORD": account.password]) {
            terminal in
            try await terminal.waitFor("the shell") { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            try await terminal.type("\(binary) chat --api \(server.apiURL.absoluteString) --email \(account.email)")
            try await terminal.press("Enter")

            // The first screen: connected, the lobby's general channel open, its conversation shown.
            let first = try await terminal.waitFor("the first screen") { screen in
                screen.hasPrefix(" ● Connected") && screen.contains("hello from the friend")
                    && screen.contains("#general")
            }
            #expect(first.contains("Chats"))
            #expect(try await terminal.display("#{alternate_on}") == "1")

            // A message typed and sent reaches the server.
            try await terminal.type("hi from the terminal ✓")
            try await terminal.press("Enter")
            // On the timeline under the user's name, as the server's echo puts it (typed text alone is still in the
            // composer, and a pending send is drawn without a name).
            try await terminal.waitFor("the message sent") { screen in
                screen.contains("demo hi from the terminal ✓") && !screen.contains("sending…")
                    && !screen.contains("queued")
            }
            let stored = await server.messages(in: server.lobbyChannelID)
            #expect(stored.contains { $0.content == "hi from the terminal ✓" && $0.author == account.userID })

            // The socket drops and the next two connections are refused: the banner counts down, then it is back.
            await server.refuseNextUpgrades(2)
            await server.dropAllSockets()
            let down = try await terminal.waitFor("the retry countdown") { $0.contains("Disconnected — retry in") }
            #expect(down.contains("F5 reconnect now"))
            try await terminal.waitFor("the session back") { $0.hasPrefix(" ● Connected") }

            // Quit: the shell's prompt again, on the main screen, with echo and canonical mode back.
            try await terminal.press("C-q")
            try await terminal.waitFor("the main screen") { !$0.contains("● Connected") }
            #expect(try await terminal.display("#{alternate_on}") == "0")
            #expect(try await terminal.display("#{cursor_flag}") == "1")
            #expect(try await terminal.display("#{mouse_any_flag}") == "0")
            let settings = FileManager.default.temporaryDirectory.appending(path: "\(terminal.socket).stty").path
            try await terminal.type("stty -a > \(settings); echo stty-done")
            try await terminal.press("Enter")
            try await terminal.waitFor("stty's answer") { $0.contains("\nstty-done") }
            let stty = try String(contentsOfFile: settings, encoding: .utf8)
            try? FileManager.default.removeItem(atPath: settings)
            let flags = stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init)
            #expect(flags.contains("echo") && !flags.contains("-echo"))
            #expect(flags.contains("icanon") && !flags.contains("-icanon"))
        }
        await server.stop()
    }

    @Test("a message selected, edited and reacted to from the keys: the server has the edit and the reaction")
    func editAndReact() async throws {
        let server = try await ReferenceServer.start()
        let friend = try await server.addUser(username: "friend")
        try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        let account = server.defaultAccount
        let mine = try await server.postMessage(as: account.userID, in: server.lobbyChannelID, content: "frist post")
        let friends = try await server.postMessage(
            as: friend.userID, in: server.lobbyChannelID, content: "hello from the friend")
        let binary = try Executable.url.path
        try await TmuxTerminal.with(columns: 120, rows: 36, environment: ["LIFELINE_PASSWORD": account.password]) {
            terminal in
            try await terminal.waitFor("the shell") { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            try await terminal.type("\(binary) chat --api \(server.apiURL.absoluteString) --email \(account.email)")
            try await terminal.press("Enter")
            try await terminal.waitFor("the first screen") { screen in
                screen.hasPrefix(" ● Connected") && screen.contains("hello from the friend")
                    && screen.contains("frist post")
            }
            // Ctrl-↑ twice selects the user's message (the newest is the friend's); Alt-E puts it in the composer.
            try await terminal.press("C-Up")
            try await terminal.press("C-Up")
            try await terminal.waitFor("the selection's keys") { $0.contains("Selected:") && $0.contains("Alt-E") }
            try await terminal.press("M-e")
            try await terminal.waitFor("the edit in the composer") { $0.contains("Editing your message") }
            try await terminal.press("C-u")
            try await terminal.type("first post")
            try await terminal.press("Enter")
            try await terminal.waitFor("the edit shown") { screen in
                screen.contains("first post (edited)") && !screen.contains("Editing your message")
            }
            let edited = await server.message(id: mine.id)
            #expect(edited?.content == "first post" && edited?.edited != nil)

            // Alt-A on the friend's message (the newest, nothing selected): Enter reacts with the first emoji.
            try await terminal.press("M-a")
            try await terminal.waitFor("the reaction picker") { $0.contains("React with:") }
            try await terminal.press("Enter")
            try await terminal.waitFor("the reaction shown, confirmed") { screen in
                screen.contains("👍 1") && !screen.contains("👍 1…")
            }
            let reacted = await server.message(id: friends.id)
            #expect(reacted?.reactions?.contains { $0.emoji == "👍" && $0.users == [account.userID] } == true)

            // Ctrl-O: the text typed is put aside while the path is typed; Enter sends the file with it.
            let file = FileManager.default.temporaryDirectory.appending(path: "lifeline-e2e-\(UUID().uuidString).txt")
            try Data("attached from the chat\n".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            try await terminal.type("the file")
            // A path that names no file queues nothing, and the text put aside comes back to the composer.
            try await terminal.press("C-o")
            try await terminal.waitFor("the attach prompt") { $0.contains("Attach a file") }
            try await terminal.type(file.path + ".missing")
            try await terminal.press("Enter")
            try await terminal.waitFor("the text back in the composer") { screen in
                screen.contains("› the file") && !screen.contains("Attach a file")
            }
            try await terminal.press("C-o")
            try await terminal.waitFor("the attach prompt") { $0.contains("Attach a file") }
            try await terminal.type(file.path)
            try await terminal.press("Enter")
            try await terminal.waitFor("the message with its file shown, confirmed") { screen in
                // The confirmed message's attachment row: the failed attempt's error names "the file" too.
                screen.contains("[attachment: \(file.lastPathComponent)]") && !screen.contains("📎")
                    && !screen.contains("Attach a file")
            }
            let attached = await server.messages(in: server.lobbyChannelID).last { $0.content == "the file" }
            #expect(attached?.attachments?.map(\.filename) == [file.lastPathComponent])

            try await terminal.press("C-q")
            try await terminal.waitFor("the main screen") { !$0.contains("● Connected") }
        }
        await server.stop()
    }

    @Test(
        """
        the demo world: signed in at once, the screen says it is a local demo world, fault keys show the device \
        offline and a suspended account's permanent error
        """)
    func demoWorld() async throws {
        let binary = try Executable.url.path
        try await TmuxTerminal.with(columns: 120, rows: 36) { terminal in
            try await terminal.waitFor("the shell") { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            try await terminal.type("\(binary) chat")
            try await terminal.press("Enter")
            try await terminal.waitFor("the demo's first screen") { screen in
                screen.hasPrefix(" ● Connected") && screen.contains("local demo world") && screen.contains("#general")
                    && screen.contains("Night Owls")
            }
            try await terminal.type("?")
            try await terminal.waitFor("the help with the fault keys") {
                $0.contains("drop the socket") && $0.contains("Alt-1")
            }
            try await terminal.press("Escape")
            try await terminal.press("M-3")
            try await terminal.waitFor("the device offline") { $0.hasPrefix(" ○ Device offline") }
            try await terminal.press("M-3")
            try await terminal.waitFor("the session back") { $0.hasPrefix(" ● Connected") }
            try await terminal.press("M-8")
            try await terminal.waitFor("the suspended account's permanent error") {
                $0.contains("Your account has been suspended.") && $0.contains("Enter: dismiss")
            }
            try await terminal.press("Enter")
            try await terminal.waitFor("the login screen after the dismissal") {
                $0.contains("Password") && !$0.contains("Enter: dismiss")
            }
            try await terminal.press("C-c")
            try await terminal.waitFor("the main screen") { !$0.contains("local demo world") }
            #expect(try await terminal.display("#{alternate_on}") == "0")
        }
    }

    @Test(
        """
        the demo's fault keys each show what they cause: Alt-1 the banner's countdown, Alt-2 the backoff growing, \
        Alt-4 a silent server noticed, Alt-6 the outage alert, Alt-7 the logout notice; the session comes back after each
        """)
    func demoFaultKeys() async throws {
        let binary = try Executable.url.path
        try await TmuxTerminal.with(columns: 120, rows: 36) { terminal in
            try await terminal.waitFor("the shell") { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            try await terminal.type("\(binary) chat")
            try await terminal.press("Enter")
            let connected: @Sendable (String) -> Bool = { $0.hasPrefix(" ● Connected") }
            try await terminal.waitFor("the demo's first screen") { screen in
                connected(screen) && screen.contains("local demo world")
            }

            // Alt-1: the socket drops; DISCONNECTED's countdown shows until the retry, which may come within a second,
            // so its banner is looked for in what the program wrote, then the session is back.
            let mark = terminal.outputMark
            try await terminal.press("M-1")
            try await terminal.waitForOutput(
                "the dropped socket's banner", since: mark, containing: "Disconnected — retry in")
            try await terminal.waitFor("the session back after Alt-1", connected)

            // Alt-2: three connections refused after the drop: the failures add up and the wait grows (four or
            // more: a connection too short to count, on a loaded machine, keeps the failures before it).
            try await terminal.press("M-2")
            try await terminal.waitFor("the fourth failure's countdown") { screen in
                let failures = screen.firstMatch(of: /failures: (\d+)/).flatMap { Int($0.1) } ?? 0
                return screen.hasPrefix(" ○ Disconnected — retry in") && failures >= 4
                    && screen.contains("F5 reconnect now")
            }
            try await terminal.press("F5")
            try await terminal.waitFor("the session back after Alt-2", connected)

            // Alt-4: a silent server: the heartbeat notices, and while it stays silent no connection holds — the
            // failures add up (at least two; a loaded machine may look only after many more).
            try await terminal.press("M-4")
            try await terminal.waitFor("the silent server noticed") { screen in
                let failures = screen.firstMatch(of: /failures: (\d+)/).flatMap { Int($0.1) } ?? 0
                return (screen.hasPrefix(" ○ Disconnected") || screen.hasPrefix(" ◌ Reconnecting")) && failures >= 2
            }
            try await terminal.press("M-4")
            try await terminal.waitFor("the session back after the server speaks again", connected)

            // Alt-6: an outage: the health service's alert under the status line, the session down until it ends.
            try await terminal.press("M-6")
            try await terminal.waitFor("the outage alert") { screen in
                let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
                return lines.count > 1 && lines[1].hasPrefix(" ⚠ The demo world's events service is down")
                    && !connected(screen)
            }
            try await terminal.press("M-6")
            try await terminal.waitFor("the session back and the alert gone after the outage") { screen in
                connected(screen) && !screen.contains("events service is down")
            }

            // Alt-7: another device logs the session out: READY's login screen with the notice; Enter signs in again.
            try await terminal.press("M-7")
            try await terminal.waitFor("the logout notice on the login screen") { screen in
                screen.contains("You were logged out.") && screen.contains("Password")
            }
            try await terminal.press("Enter")
            try await terminal.waitFor("the session back after signing in again", connected)

            try await terminal.press("C-q")
            try await terminal.waitFor("the main screen") { !$0.contains("local demo world") }
        }
    }
}
