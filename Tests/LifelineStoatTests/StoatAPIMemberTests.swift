import Foundation
import LifelineCore
import LifelineStoat
import StoatReferenceServer
import Testing

@Suite("GET /servers/{id}/members/{member} against the reference server", .hangBound)
struct StoatAPIMemberTests {
    @Test("the member comes with the server's Date; a timeout stays after it passed; a non-member is NotFound")
    func member() async throws {
        let start = Date(timeIntervalSince1970: 1_750_000_000.4)
        let server = try await ReferenceServer.start(.init(now: { start }))
        let lobby = server.lobbyServerID
        let owner = server.defaultAccount
        let member = try await server.addUser(username: "member")
        try await server.join(userID: member.userID, serverID: lobby)
        let api = StoatAPI(baseURL: server.apiURL, requestTimeout: .failureBound)
        let session = SessionCredentials(token: owner.token, userID: owner.userID)

        let past = start.addingTimeInterval(-60)
        try await server.timeOutMember(userID: member.userID, serverID: lobby, until: past)
        let answer = try await api.member(member.userID, in: lobby, session)
        #expect(answer.value.id == Member.ID(server: lobby, user: member.userID))
        #expect(abs((answer.value.timeout ?? .distantFuture).timeIntervalSince(past)) < 0.001, "kept after it passed")
        #expect(answer.serverDate == Date(timeIntervalSince1970: 1_750_000_000), "the Date header, whole seconds")

        let outsider = try await server.addUser(username: "outsider")
        await #expect {
            _ = try await api.member(outsider.userID, in: lobby, session)
        } throws: { error in
            (error as? StoatAPIError)?.code == .notFound
        }
        await #expect {
            _ = try await api.member(member.userID, in: lobby, SessionCredentials(token: outsider.token))
        } throws: { error in
            (error as? StoatAPIError)?.code == .notFound
        }
        await server.stop()
    }
}
