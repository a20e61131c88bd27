import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import Testing

@testable import LifelineStoat

/// Every number a server states, at its most extreme, through every decoder and every scheduling path of the
/// client: decoded within ``ServerHorizon`` (or refused as undecodable), and scheduled without a trap.
@Suite("Hostile numbers: every decoder and scheduling path", .hangBound)
struct HostileNumbersTests {
    /// JSON numbers no field of Stoat's bounds: 2^63 − 1, 2^63, 2^64 − 1, −2^63, ±1e300, the largest double, a
    /// fraction, −1.
    static let numbers = [
        "9223372036854775807", "9223372036854775808", "18446744073709551615", "-9223372036854775808", "1e300",
        "-1e300", "1.7976931348623157e308", "0.5", "-1",
    ]

    /// Every event with a number (or a date) in it, with `N` where the number goes.
    static let templates = [
        #"{"type":"UserSlowmodes","slowmodes":[{"channel_id":"C","duration":N,"retry_after":N}]}"#,
        #"{"type":"Pong","data":N}"#,
        #"{"type":"Ping","data":N}"#,
        #"{"type":"UserPlatformWipe","user_id":"U","flags":N}"#,
        #"{"type":"Message","_id":"M","channel":"C","author":"U","content":"x","flags":N}"#,
        #"{"type":"Message","_id":"M","channel":"C","author":"U","attachments":[{"_id":"F","tag":"attachments","filename":"f","metadata":{"type":"Image","width":N,"height":N},"content_type":"image/png","size":N}]}"#,
        #"{"type":"UserUpdate","id":"U","data":{"badges":N,"flags":N}}"#,
        #"{"type":"ServerUpdate","id":"S","data":{"flags":N,"default_permissions":N}}"#,
        #"{"type":"ChannelUpdate","id":"C","data":{"slowmode":N,"permissions":N,"default_permissions":{"a":N,"d":N}}}"#,
        #"{"type":"ChannelCreate","_id":"C","channel_type":"TextChannel","server":"S","name":"c","slowmode":N,"voice":{"max_users":N}}"#,
        #"{"type":"ServerCreate","id":"S","server":{"_id":"S","owner":"U","name":"s","channels":[],"flags":N,"approximate_member_count":N,"roles":{"R":{"name":"r","permissions":{"a":N,"d":N},"rank":N}}},"channels":[],"emojis":[]}"#,
        #"{"type":"Ready","users":[{"_id":"U","username":"u","discriminator":"0001","badges":N,"flags":N}],"servers":[],"channels":[{"_id":"C","channel_type":"TextChannel","server":"S","name":"c","slowmode":N}],"members":[],"emojis":[]}"#,
    ]

    static let dates = [
        "9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z", "+275760-09-13T00:00:00.000Z",
        "-271821-04-20T00:00:00.000Z", "99999-01-01T00:00:00Z", "2025-02-30T25:61:61Z",
    ]

    @Test("every event with a number decodes within the horizons or is undecodable: never a trap", arguments: templates)
    func events(_ template: String) {
        for number in Self.numbers {
            let frame = template.replacingOccurrences(of: "N", with: number)
            switch BonfireDecoder().decode(frame) {
            case .event(.userSlowmodes(let slowmodes)):
                for slowmode in slowmodes {
                    #expect((0...31_622_400).contains(slowmode.retryAfter), "\(frame)")
                    #expect((0...31_622_400).contains(slowmode.duration), "\(frame)")
                }
            case .event, .undecodable: break
            case .tooLarge: Issue.record("\(frame) is not too large")
            }
        }
    }

    @Test("UserSlowmodes' counts are read from any JSON number and clamped to 0 … 366 days, fractions rounded up")
    func userSlowmodesClamped() {
        let frame = """
            {"type":"UserSlowmodes","slowmodes":[\
            {"channel_id":"A","duration":18446744073709551615,"retry_after":9223372036854775807},\
            {"channel_id":"B","duration":-1,"retry_after":1e300},\
            {"channel_id":"C","duration":0.5,"retry_after":-9223372036854775808}]}
            """
        #expect(
            BonfireDecoder().decode(frame)
                == .event(
                    .userSlowmodes([
                        ChannelSlowmode(channelID: "A", duration: 31_622_400, retryAfter: 31_622_400),
                        ChannelSlowmode(channelID: "B", duration: 0, retryAfter: 31_622_400),
                        ChannelSlowmode(channelID: "C", duration: 1, retryAfter: 0),
                    ])))
        #expect(
            BonfireDecoder().decode(
                #"{"type":"UserSlowmodes","slowmodes":[{"channel_id":"A","duration":1,"retry_after":"soon"}]}"#)
                == .undecodable(reason: "wrong type at slowmodes.[0].retry_after"))
    }

    @Test(
        "a member's timeout at the edges of the calendar, or beyond, decodes or is refused, never traps",
        arguments: dates)
    func memberDates(_ date: String) {
        let frame = """
            {"type":"ServerMemberUpdate","id":{"server":"S","user":"U"},"data":{"timeout":"\(date)","joined_at":"\(date)"},"clear":[]}
            """
        if case .event(.serverMemberUpdate(_, let data, _)) = BonfireDecoder().decode(frame), let timeout = data.timeout
        {
            let time = WallClockTime(timeout)
            #expect(time >= ServerHorizon.earliestTime && time <= ServerHorizon.latestTime)
        }
        let ready = """
            {"type":"Ready","users":[{"_id":"U","username":"u","discriminator":"0001"}],"servers":[],"channels":[],\
            "members":[{"_id":{"server":"S","user":"U"},"joined_at":"\(date)","timeout":"\(date)"}],"emojis":[]}
            """
        _ = BonfireDecoder().decode(ready)
    }

    @Test("a 429's or a refusal's wait is bounded however it is stated")
    func refusalWaits() {
        for number in Self.numbers {
            let limited = StoatAPIError.refusal(
                status: 429, body: Data(#"{"retry_after":\#(number)}"#.utf8), request: "r")
            #expect(limited.code == .rateLimited)
            #expect(limited.retryAfter.map { $0 >= .zero && $0 <= ServerHorizon.longestWait } ?? true, "\(number)")
            let slowmode = StoatAPIError.refusal(
                status: 429, body: Data(#"{"type":"InSlowmode","retry_after":\#(number),"max":\#(number)}"#.utf8),
                request: "r")
            #expect(slowmode.code == .inSlowmode)
            #expect(slowmode.retryAfter.map { $0 >= .zero && $0 <= ServerHorizon.longestWait } ?? true, "\(number)")
        }
        let absurd = StoatAPIError.refusal(
            status: 429, body: Data(#"{"type":"InSlowmode","retry_after":1e300}"#.utf8), request: "r")
        #expect(absurd.retryAfter == ServerHorizon.longestWait)
    }

    @Test("the health endpoint's poll_rate is read from any number and bounded; a bad one loses only itself")
    func healthPollRate() throws {
        func status(_ json: String) throws -> HealthStatus {
            try JSONDecoder().decode(StoatAPI.Wire.Health.self, from: Data(json.utf8)).status
        }
        for number in Self.numbers {
            let interval = try status(#"{"poll_rate":\#(number),"alert":{"text":"down"}}"#).pollInterval
            #expect(interval.map { $0 > .zero && $0 <= ServerHorizon.longestWait } ?? true, "\(number)")
        }
        #expect(try status(#"{"poll_rate":1e300}"#).pollInterval == ServerHorizon.longestWait)
        #expect(try status(#"{"poll_rate":-5}"#).pollInterval == nil)
        let kept = try status(#"{"poll_rate":"often","alert":{"text":"down"}}"#)
        #expect(kept.alert?.text == "down" && kept.pollInterval == nil)
    }

    // MARK: - The deadline book

    @Test(
        "an absurd slowmode is watched until the horizon at most, then asked about",
        arguments: [Int.max, Int.min, -1, 0])
    func slowmodeAtTheHorizon(_ retryAfter: Int) {
        var book = RestrictionBook()
        let actions = book.slowmodeSet(channel: "C", retryAfter: retryAfter, now: .seconds(5))
        guard retryAfter > 0 else {
            #expect(actions.isEmpty)
            return
        }
        let check = Duration.seconds(5) + ServerHorizon.longestWait + RestrictionBook.slowmodeResolution
        #expect(actions.first == RestrictionBook.Action.watch(ticket: 1, at: check))
        #expect(book.restrictions.first?.retryAfter == 31_622_400)
        #expect(book.watchFired(ticket: 1, now: check) == [.confirm(StoatRestriction.ID(.slowmode, "C"), ticket: 2)])
    }

    @Test("a timeout until an absurd date is watched until the horizon, re-watched when still on, never trapping")
    func timeoutAtTheHorizon() {
        let id = StoatRestriction.ID(.timeout, "S")
        for until in [Date(timeIntervalSince1970: 1e300), .distantFuture, Date(timeIntervalSince1970: 9.3e18)] {
            var book = RestrictionBook()
            #expect(book.timeoutSet(server: "S", until: until, now: .seconds(5)) == [.confirm(id, ticket: 1)])
            for serverTime in [WallClockTime(secondsSince1970: Int64(1_000)), ServerHorizon.earliestTime] {
                let anchor = ServerClockAnchor(
                    serverTime: serverTime, resolution: .seconds(1), roundTrip: .zero, receivedAt: .seconds(5))
                var copy = book
                let actions = copy.memberAnswered(
                    server: "S", ticket: 1, timeout: until, anchor: anchor, now: .seconds(5))
                let horizon = Duration.seconds(5) + ServerHorizon.longestWait
                #expect(actions.first == RestrictionBook.Action.watch(ticket: 2, at: horizon), "\(until) \(serverTime)")
                #expect(copy.watchFired(ticket: 2, now: horizon) == [.confirm(id, ticket: 3)])
                let again = copy.memberAnswered(server: "S", ticket: 3, timeout: until, anchor: anchor, now: horizon)
                #expect(again.first == RestrictionBook.Action.watch(ticket: 4, at: horizon + ServerHorizon.longestWait))
            }
        }
        // A server clock at the end of time: every timeout is over.
        var book = RestrictionBook()
        _ = book.timeoutSet(server: "S", until: .distantFuture, now: .zero)
        let late = ServerClockAnchor(
            serverTime: WallClockTime(secondsSince1970: 1e300), resolution: .seconds(1), roundTrip: .zero,
            receivedAt: .zero)
        #expect(book.memberAnswered(server: "S", ticket: 1, timeout: .distantFuture, anchor: late, now: .zero).isEmpty)
    }

    // MARK: - Operations

    struct Operation: Identifiable, Sendable {
        var id: String
    }

    @Test("operations expiring at absurd times are watched on the continuous clock without a trap")
    func operationExpiries() async {
        let source = ScriptedOperationSource<Operation>()
        let list = OperationList(source: source, clock: ContinuousClock())
        var events = list.events.makeAsyncIterator()
        let runner = Task { await list.run() }
        let fetch = await source.nextFetch()
        let expiries: [WallClockTime?] = [
            WallClockTime(secondsSince1970: 1e300), WallClockTime(secondsSince1970: -1e300),
            WallClockTime(secondsSince1970: .nan), WallClockTime(secondsSince1970: Int64.max), nil,
        ]
        fetch.answer(
            OperationListing(
                expiries.enumerated().map { .init(Operation(id: "O\($0.offset)"), expires: $0.element) },
                serverTime: WallClockTime(secondsSince1970: -1e300), roundTrip: .milliseconds(5)))
        var listed: [ListedOperation<Operation>] = []
        while let event = await events.next() {
            if case .refreshed(let operations) = event {
                listed = operations
                break
            }
        }
        #expect(listed.count == expiries.count)
        for operation in listed {
            if let deadline = operation.deadline {
                let span = ServerHorizon.earliestTime.duration(to: ServerHorizon.latestTime)
                #expect(deadline - list.now <= span && list.now - deadline <= span)
            }
        }
        runner.cancel()
        await runner.value
    }
}
