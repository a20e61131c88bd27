import Foundation
import LifelineChat
import LifelineStoat
import StoatReferenceServer

/// The world `lifeline chat` shows with no `--api`: a reference server in this process, with two servers of a few
/// channels, a direct message and a group, simulated people who talk and type, and the faults the help lists.
///
/// The simulated people post through the server's own API (as their sockets would), at a pace a person can read:
/// every few seconds, from a seeded generator, so two runs with one seed say the same things.
struct DemoWorld: Sendable {
    let server: ReferenceServer
    /// The account the person is signed in as.
    let account: SeededAccount
    let people: [Person]
    let channels: [String]
    let directMessage: String
    /// The device's network, which the offline fault turns off.
    let network: ManualNetworkMonitor
    let seed: UInt64

    struct Person: Sendable {
        var name: String
        var userID: String
    }

    /// The person's account: shown on the login screen, so the demo's sign-in is one key.
    static let email = "you@lifeline.demo"
    static let password = "lifeline-demo"

    static func start(seed: UInt64) async throws -> DemoWorld {
        let server = try await ReferenceServer.start()
        let you = try await server.addAccount(email: email, password: password, username: "you")
        var people: [Person] = []
        for name in ["ada", "grace", "linus", "yuki", "zoë"] {
            let account = try await server.addUser(username: name)
            people.append(Person(name: name, userID: account.userID))
        }
        try await server.setDisplayName(userID: people[3].userID, displayName: "雪 Yuki")
        try await server.setDisplayName(userID: people[4].userID, displayName: "Zoë 🦊")
        let lounge = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(26).uppercased()
        let owls = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(26).uppercased()
        await server.addServer(StoatServer(id: String(lounge), owner: people[0].userID, name: "Lifeline Lounge"))
        await server.addServer(StoatServer(id: String(owls), owner: people[1].userID, name: "Night Owls"))
        var channels: [String] = []
        for (serverID, names) in [
            (String(lounge), ["general", "random", "help"]), (String(owls), ["chatter", "links"]),
        ] {
            for member in [you.userID] + people.map(\.userID) {
                try await server.join(userID: member, serverID: serverID)
            }
            for name in names {
                channels.append(try await server.addTextChannel(serverID: serverID, name: name).id)
            }
        }
        try await server.makeFriends(you.userID, people[0].userID)
        let direct = try await server.openDirectMessage(you.userID, people[0].userID).id
        // A backlog, so each channel opens on a conversation.
        var generator = SplitMix(seed: seed)
        for channel in channels {
            for _ in 0..<12 {
                let person = people[Int(generator.next() % UInt64(people.count))]
                try await server.postMessage(
                    as: person.userID, in: channel,
                    content: Self.lines[Int(generator.next() % UInt64(Self.lines.count))])
            }
        }
        try await server.postMessage(as: people[0].userID, in: direct, content: "welcome to the demo world 👋")
        try await server.postMessage(
            as: people[0].userID, in: direct, content: "press ? for the keys: Alt-1 … Alt-0 break things on purpose")
        return DemoWorld(
            server: server, account: you, people: people, channels: channels, directMessage: direct,
            network: ManualNetworkMonitor(.online), seed: seed)
    }

    /// Simulated people typing, then posting, every few seconds, until cancelled.
    func talk() async {
        var generator = SplitMix(seed: seed &+ 1)
        while !Task.isCancelled {
            let person = people[Int(generator.next() % UInt64(people.count))]
            // Most talk happens where the person is likely looking: the first channels.
            let channel = channels[Int(generator.next() % UInt64(min(3, channels.count)))]
            let line = Self.lines[Int(generator.next() % UInt64(Self.lines.count))]
            try? await server.setTyping(userID: person.userID, channelID: channel, typing: true)
            do {
                try await Task.sleep(for: .milliseconds(1500 + Int(generator.next() % 2000)))
            } catch { return }
            try? await server.setTyping(userID: person.userID, channelID: channel, typing: false)
            _ = try? await server.postMessage(as: person.userID, in: channel, content: line)
            do {
                try await Task.sleep(for: .milliseconds(2500 + Int(generator.next() % 4000)))
            } catch { return }
        }
    }

    /// Injects a fault the help overlay lists.
    func inject(_ fault: DemoFault, channel: String?, serverID: String?) async {
        switch fault {
        case .dropSocket:
            await server.dropAllSockets()
        case .refuseConnections:
            await server.refuseNextUpgrades(3)
            await server.dropAllSockets()
        case .toggleOffline:
            if network.status == .offline {
                network.set(.online)
            } else {
                network.set(.offline)
                await server.dropAllSockets()
            }
        case .toggleSilent:
            let silent = !(await Toggles.shared.flip(.silent))
            await server.setSilent(!silent)
            await server.setIgnoresPings(!silent)
        case .deafSocket:
            await server.deafenSockets()
        case .toggleOutage:
            let on = await Toggles.shared.flip(.outage)
            if on {
                await server.setHealthAlert(
                    HealthAlert(
                        text: "The demo world's events service is down (a simulated outage).", dismissable: false,
                        actions: [HealthAlert.Action(text: "Status", type: "external", href: "https://status.example")]),
                    pollRate: 2000)
                await server.refuseNextUpgrades(1_000)
                await server.dropAllSockets()
            } else {
                await server.setHealthAlert(nil)
                await server.refuseNextUpgrades(0)
            }
        case .externalLogout:
            let tokens = Set(
                await server.connections().filter { $0.userID == account.userID && $0.isOpen }.compactMap(\.token))
            for token in tokens { await server.revokeSession(token: token) }
        case .suspendAccount:
            // As `lifeline demo` does it: the socket drops first and the session is revoked while it is down, so
            // the reconnect is refused and the account's lookup finds the suspension — ERROR with its tailored
            // text and a dismiss key. (A revocation seen on the open socket is an external logout: READY.)
            let tokens = Set(
                await server.connections().filter { $0.userID == account.userID && $0.isOpen }.compactMap(\.token))
            _ = await server.setUserFlags(1, userID: account.userID)
            _ = await server.dropSockets(userIDs: [account.userID])
            for token in tokens { await server.revokeSession(token: token) }
            // Its flags alone do not refuse a login, so the person signs in again at once after dismissing; the
            // demo clears them a minute later — not sooner, as the lifecycle confirms a refused session before it
            // looks the account up, and a lookup after the lift would find the account fine ("logged out").
            try? await Task.sleep(for: .seconds(60))
            await server.reinstateAccount(userID: account.userID)
        case .toggleSlowmode:
            guard let channel else { return }
            let on = await Toggles.shared.flip(.slowmode(channel))
            try? await server.setSlowmode(channelID: channel, seconds: on ? 10 : nil)
        case .timeOut:
            guard let serverID else { return }
            try? await server.timeOutMember(
                userID: account.userID, serverID: serverID, until: await server.now().addingTimeInterval(30))
        }
    }

    /// What the demo turned on, to turn it off again.
    actor Toggles {
        static let shared = Toggles()
        enum Key: Hashable {
            case silent, outage
            case slowmode(String)
        }
        private var on: Set<Key> = []

        /// Turns a toggle over; whether it is on now.
        func flip(_ key: Key) -> Bool {
            if on.remove(key) != nil { return false }
            on.insert(key)
            return true
        }
    }

    static let lines = [
        "has anyone tried the new build?", "the train is late again 🚆", "lunch? 🍜", "I pushed the fix, please review",
        "日本語のメッセージも表示できますか？", "works on my machine ¯\\_(ツ)_/¯", "👍🏽", "brb",
        "the wifi here drops every ten minutes, good test for Lifeline", "did the deploy go out?",
        "TIL: a family emoji is one grapheme: 👨‍👩‍👧‍👦", "who broke the staging server 😅", "standup in 5",
        "reading the stoat protocol docs, Bonfire is neat", "coffee ☕ anyone?", "ok, merged",
        "a longer message that wraps over several lines of the timeline, so that the layout of wrapped text can be seen at work in a narrow terminal",
        "can someone check #help?", "🎉🎉🎉", "I'll be offline for an hour",
    ]
}

/// A small seeded generator (SplitMix64), so a demo world's talk repeats with its seed.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
