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
}
