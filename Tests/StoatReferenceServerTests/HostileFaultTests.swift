import Foundation
import Testing

@testable import StoatReferenceServer

/// The admin API takes only finite, bounded numbers, and the `hostile` fault states absurd ones on purpose.
@Suite("Admin numbers and the hostile fault", .hangBound)
struct HostileFaultTests {
    /// Every admin route that takes a number, with the key and what comes with it.
    static let numericRoutes: [(route: String, key: String, extra: String)] = [
        ("/fail-message-queries", "count", ""), ("/refuse-upgrades", "count", ""),
        ("/ready-delay", "milliseconds", ""), ("/ready-size", "bytes", ""),
        ("/next-logins", "count", #","answer":"MFA""#), ("/user-flags", "flags", #","user_id":"U""#),
        ("/session-outage", "seconds", ""), ("/health", "poll_rate", ""), ("/clock-skew", "seconds", ""),
        ("/operations", "expires_in_seconds", #","kind":"k","user_id":"U""#),
        ("/channels", "slowmode", #","server_id":"S","name":"n""#),
        ("/slowmode", "seconds", #","channel_id":"C""#), ("/hostile", "rejections", #","enabled":true"#),
        ("/load/population", "users", ""), ("/load/report", "closed_after", ""),
    ]

    static let absurd = [
        "1e300", "-1e300", "1.7976931348623157e308", "18446744073709551616", "-9223372036854775809", "\"12\"",
        "[1]", "0.5",
    ]

    @Test("a number that is not finite, not bounded or of the wrong type is refused 400, and the server lives on")
    func absurdNumbersRefused() async throws {
        try await withServer { server throws in
            for (route, key, extra) in Self.numericRoutes {
                for value in Self.absurd where !(value == "0.5" && ["seconds", "expires_in_seconds"].contains(key)) {
                    let answer = try await server.admin(.POST, route, json: #"{"\#(key)":\#(value)\#(extra)}"#)
                    #expect(answer.status == 400, "\(route) \(key)=\(value): \(answer.status) \(answer.text)")
                    #expect(answer.errorType == "FailedValidation", "\(route) \(key)=\(value)")
                }
            }
            // Still serving, and nothing was set: no Ready padding, no refused upgrade.
            #expect(try await server.admin(.GET, "/state").status == 200)
            let socket = try await server.connectReady(token: server.defaultAccount.token)
            await socket.close()
            #expect(await server.socketCounters().upgradesRefused == 0)
        }
    }

    @Test("numbers within the bounds are taken: ready-size up to 64 MiB, a skew up to 366 days either way")
    func boundedNumbersTaken() async throws {
        try await withServer { server throws in
            #expect(try await server.admin(.POST, "/ready-size", json: #"{"bytes":67108864}"#).status == 204)
            #expect(try await server.admin(.POST, "/ready-size", json: #"{"bytes":67108865}"#).status == 400)
            #expect(try await server.admin(.POST, "/ready-size", json: #"{"bytes":0}"#).status == 204)
            #expect(try await server.admin(.POST, "/clock-skew", json: #"{"seconds":-31622400}"#).status == 204)
            #expect(try await server.admin(.POST, "/clock-skew", json: #"{"seconds":31622401}"#).status == 400)
            #expect(try await server.admin(.POST, "/clock-skew", json: #"{"seconds":0}"#).status == 204)
            #expect(try await server.admin(.POST, "/session-outage", json: #"{"seconds":0.5}"#).status == 204)
            #expect(try await server.admin(.POST, "/session-outage", json: #"{"enabled":false}"#).status == 204)
            #expect(
                try await server.admin(.POST, "/next-logins", json: #"{"answer":"MFA","count":1000000}"#).status == 204)
        }
    }

    @Test("the Swift API caps what it is given too: ready-size to 64 MiB, forced logins to a million")
    func swiftAPICapped() async throws {
        try await withServer { server throws in
            await server.setReadyMinimumSize(Int.max)
            #expect(await server.state.faults.readyMinimumBytes == AdminLimits.largestReady)
            await server.answerNextLogins(with: .mfa, count: Int.max)
            await server.answerNextLogins(with: .mfa, count: Int.max)
            #expect(await server.state.faults.forcedLogins.count == AdminLimits.count.upperBound)
        }
    }

    @Test("hostile: absurd UserSlowmodes and member timeouts after Ready, headers on every answer, 429s, poll_rate")
    func hostileFault() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            #expect(try await server.admin(.POST, "/hostile", json: #"{"enabled":true,"rejections":1}"#).status == 204)
            let refused = try await server.http(.GET, "/users/@me", token: token)
            #expect(refused.status == 429)
            #expect(refused.text == #"{"retry_after":1e+300}"#)
            #expect(refused.headers["x-ratelimit-reset-after"] == "1e300")
            #expect(refused.headers["x-ratelimit-remaining"] == "-9223372036854775808")
            let answered = try await server.http(.GET, "/users/@me", token: token)
            #expect(answered.status == 200)
            #expect(answered.headers["x-ratelimit-reset-after"] == "9223372036854775807")
            #expect(answered.headers["x-ratelimit-limit"] == "18446744073709551615")
            #expect(try await server.http(.GET, "/api/health").text.contains(#""poll_rate":1e+300"#))

            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Authenticate","token":"\#(token)"}"#)
            #expect(try await socket.nextType() == "Authenticated")
            #expect(try await socket.nextType() == "Ready")
            let slowmodes = try #require(try await socket.nextEvent("UserSlowmodes"))
            let entries = try #require(slowmodes["slowmodes"] as? [[String: Any]])
            #expect(entries.count == 6)
            #expect(entries.first?["channel_id"] as? String == server.lobbyChannelID)
            let update = try #require(try await socket.nextEvent("ServerMemberUpdate"))
            #expect((update["data"] as? [String: Any])?["timeout"] as? String == "9999-12-31T23:59:59.999Z")
            await socket.close()

            // The data is unchanged: no slowmode, no timeout.
            let member = try await server.http(
                .GET, "/servers/\(server.lobbyServerID)/members/\(server.defaultAccount.userID)", token: token)
            #expect(member.json?["timeout"] == nil)
            #expect(try await server.admin(.POST, "/reset").status == 204)
            #expect(try await server.http(.GET, "/users/@me", token: token).headers["x-ratelimit-bucket"] != "hostile")
        }
    }
}
