import Foundation
import Testing

@testable import StoatReferenceServer

@Suite("What load tests need: populations, aimed drops, the storm, the report")
struct LoadTests {
    @Test("A population's users each have a token of their own and are members of their group's server")
    func population() async throws {
        try await withServer { server throws in
            let population = try await server.addLoadPopulation(users: 5, groups: 2)
            #expect(population.groups.count == 2)
            #expect(population.users.map(\.group) == [0, 1, 0, 1, 0])
            #expect(Set(population.users.map(\.token)).count == 5)
            let user = population.users[1]
            let group = population.groups[1]
            let socket = try await server.connectReady(token: user.token)
            let me = try await server.http(.GET, "/users/@me", token: user.token)
            #expect(me.json?["_id"] as? String == user.userID)
            let servers = try await server.http(.GET, "/servers/\(group.serverID)", token: user.token)
            #expect(servers.status == 200)
            let other = try await server.http(.GET, "/servers/\(population.groups[0].serverID)", token: user.token)
            #expect(other.status == 404)
            // The poster may post in the group's channel, and the member hears it.
            let message = try await server.postMessage(as: group.posterID, in: group.channelID, content: "hello")
            #expect(try await socket.next(skipping: ["UserUpdate"])?.contains(message.id) == true)
            await socket.close()
        }
    }

    @Test("A population out of range is refused")
    func outOfRange() async throws {
        try await withServer { server throws in
            await #expect(throws: ReferenceServerError.self) { try await server.addLoadPopulation(users: -1) }
            let answer = try await server.admin(.POST, "/load/population", json: #"{"users":100001}"#)
            #expect(answer.status == 400)
        }
    }

    @Test("Dropping some users' sockets leaves the others open")
    func aimedDrop() async throws {
        try await withServer { server throws in
            let population = try await server.addLoadPopulation(users: 3)
            let sockets = try await population.users.asyncMap { try await server.connectReady(token: $0.token) }
            #expect(await server.dropSockets(userIDs: [population.users[0].userID, population.users[2].userID]) == 2)
            #expect(try await sockets[0].next() == nil)
            #expect(try await sockets[2].next() == nil)
            try await server.waitUntil { _, counters in counters.liveSockets == 1 }
            await sockets[1].send(#"{"type":"Ping","data":7}"#)
            #expect(try await sockets[1].next() == #"{"type":"Pong","data":7}"#)
            await sockets[1].close()
        }
    }

    @Test("The storm starts the arrival bins at the drop and drops every socket")
    func storm() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let first = try await server.connectReady(token: token)
            let arrivals = await server.arrivals()
            #expect(arrivals.total == 1)
            #expect(await server.startStorm() == 1)
            #expect(try await first.next() == nil)
            #expect(await server.arrivals().total == 0)
            let again = try await server.connectReady(token: token)
            #expect(await server.arrivals().total == 1)
            await again.close()
        }
    }

    @Test("The report counts each connection's Subscribe frames and every socket opened beside another of its token")
    func report() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let lobby = server.lobbyServerID
            let first = try await server.connectReady(token: token)
            await first.send(#"{"type":"Subscribe","server_id":"\#(lobby)"}"#)
            await first.send(#"{"type":"Subscribe","server_id":"\#(lobby)"}"#)
            try await server.waitUntil { records, _ in records.first?.receivedFrames.count == 4 }
            var report = await server.loadReport()
            #expect(report.maximumOpenPerToken == 1)
            #expect(report.overlapCount == 0)
            #expect(report.open.map(\.subscribes) == [[lobby: 2]])
            #expect(report.open.first?.userID == server.defaultAccount.userID)
            #expect(report.open.first?.receivedReady == true)

            // A second socket of the same session while the first is open: an overlap.
            let second = try await server.connectReady(token: token)
            report = await server.loadReport()
            #expect(report.maximumOpenPerToken == 2)
            #expect(report.overlapCount == 1)
            #expect(report.overlaps.first?.connectionIDs == [1, 2])

            // After both close, a third socket overlaps nothing; the closed ones are listed once, in order.
            await first.close()
            await second.close()
            try await server.waitUntil { _, counters in counters.liveSockets == 0 }
            let third = try await server.connectReady(token: token)
            report = await server.loadReport()
            #expect(report.overlapCount == 1)
            #expect(report.closed.map(\.id).sorted() == [1, 2])
            #expect(report.closedCount == 2)
            #expect(await server.loadReport(closedAfter: report.closedCount).closed.isEmpty)
            await third.close()
        }
    }

    @Test("A silent socket counts for its token from its Authenticate frame")
    func silentSocket() async throws {
        try await withServer { server throws in
            await server.setSilent(true)
            let token = server.defaultAccount.token
            let silent = await TestSocket.connect(server.eventsURL())
            await silent.send(#"{"type":"Authenticate","token":"\#(token)"}"#)
            try await server.waitUntil { records, _ in records.first?.receivedFrames.count == 1 }
            await server.setSilent(false)
            let second = try await server.connectReady(token: token)
            let report = await server.loadReport()
            #expect(report.overlapCount == 1)
            #expect(report.open.first?.userID == server.defaultAccount.userID)
            await silent.close()
            await second.close()
        }
    }

    @Test("The admin routes answer the population, the drops, the storm and the report as JSON")
    func adminRoutes() async throws {
        try await withServer { server throws in
            let made = try await server.admin(.POST, "/load/population", json: #"{"users":2,"groups":1}"#)
            #expect(made.status == 200)
            let users = try #require(made.json?["users"] as? [[String: Any]])
            #expect(users.count == 2)
            #expect((made.json?["groups"] as? [[String: Any]])?.first?["channel_id"] is String)
            let token = try #require(users.first?["token"] as? String)
            let userID = try #require(users.first?["user_id"] as? String)
            let socket = try await server.connectReady(token: token)
            let dropped = try await server.admin(.POST, "/load/drop", json: #"{"user_ids":["\#(userID)"]}"#)
            #expect(dropped.json?["dropped"] as? Int == 1)
            #expect(try await socket.next() == nil)
            try await server.waitUntil { _, counters in counters.liveSockets == 0 }
            let storm = try await server.admin(.POST, "/load/storm")
            #expect(storm.json?["dropped"] as? Int == 0)
            let report = try await server.admin(.POST, "/load/report", json: #"{"closed_after":0}"#)
            #expect(report.json?["maximum_open_per_token"] as? Int == 1)
            #expect((report.json?["closed"] as? [[String: Any]])?.first?["user_id"] as? String == userID)
            let refused = try await server.admin(.POST, "/load/drop", json: #"{"user_ids":"nobody"}"#)
            #expect(refused.status == 400)
        }
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
