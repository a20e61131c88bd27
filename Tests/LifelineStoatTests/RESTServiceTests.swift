import Lifeline
import LifelineCore
import LifelineStoat
import StoatReferenceServer
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("REST discovery, health and operations against the reference server")
struct RESTServiceTests {
    @Test("GET / gives the events socket's URL, the features and the build")
    func rootConfiguration() async throws {
        try await withReferenceServer { server, api in
            let configuration = try await api.configuration()
            #expect(configuration.eventsURL == server.eventsURL)
            #expect(configuration.apiVersion == "0.8.8")
            #expect(configuration.appURL == server.apiURL.absoluteString)
            #expect(configuration.features.captcha == RootConfiguration.Captcha(enabled: false, key: ""))
            #expect(configuration.features.inviteOnly == false)
            // The file server on a port of its own, named as stoatchat names Autumn.
            #expect(configuration.features.fileServer.enabled)
            #expect(configuration.features.fileServer.url == server.fileServerURL.absoluteString)
            #expect(configuration.build?.semver == "0.8.8-lifeline-reference")
            #expect(configuration.build?.commitSHA == "reference")
        }
    }

    @Test("an outage alert is parsed with its actions, and poll_rate milliseconds become the poll interval")
    func healthAlert() async throws {
        try await withReferenceServer { server, api in
            let alert = HealthAlert(
                text: "Stoat is down for maintenance", dismissable: false,
                actions: [
                    .init(text: "Status page", type: "external", href: "https://status.stoat.chat"),
                    .init(text: "Settings", type: "internal", href: "/settings"),
                ])
            await server.setHealthAlert(alert, pollRate: 15_000)
            let service = StoatHealthService(api: api, url: server.healthURL)
            let status = try await service.status()
            #expect(
                status
                    == HealthStatus(
                        alert: OutageAlert(
                            text: "Stoat is down for maintenance", isDismissable: false,
                            actions: [
                                .init(text: "Status page", href: "https://status.stoat.chat", isExternal: true),
                                .init(text: "Settings", href: "/settings", isExternal: false),
                            ]),
                        pollInterval: .seconds(15)))
        }
    }

    @Test("without an alert or a poll rate the status is empty; an alert without options is dismissable")
    func healthWithoutAlert() async throws {
        try await withReferenceServer { (server, api) async throws in
            #expect(try await api.health(url: server.healthURL) == HealthStatus())
            await server.setHealthAlert(HealthAlert(text: "Slow"), pollRate: nil)
            #expect(
                try await api.health(url: server.healthURL)
                    == HealthStatus(alert: OutageAlert(text: "Slow", isDismissable: true, actions: [])))
        }
    }

    @Test("operations come with their expiries, the server's Date header, skew included, and the round trip")
    func operations() async throws {
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        let configuration = ReferenceServer.Configuration(now: { start })
        let clock = SteppingClock(step: .milliseconds(7))
        try await withReferenceServer(configuration, clock: clock) { server, api in
            let userID = server.defaultAccount.userID
            let payment = await server.addOperation(kind: "Payment", userID: userID, expiresIn: .seconds(90))
            let export = await server.addOperation(kind: "Export", userID: userID, expiresIn: .milliseconds(30_500))
            await server.setClockSkew(.seconds(20))
            let page = try await api.operations(SessionCredentials(token: server.defaultAccount.token))
            try #require(page.operations.map(\.id) == [export.id, payment.id])
            #expect(page.operations.map(\.kind) == ["Export", "Payment"])
            #expect(abs(page.operations[0].expiresAt.timeIntervalSince(start) - 30.5) < 0.001)
            #expect(abs(page.operations[1].expiresAt.timeIntervalSince(start) - 90) < 0.001)
            #expect(page.serverDate == start.addingTimeInterval(20))
            #expect(page.roundTrip == .milliseconds(7))
        }
    }

    @Test("operations need a session")
    func operationsNeedSession() async throws {
        try await withReferenceServer { _, api in
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.operations(SessionCredentials(token: "unknown"))
            }
            #expect(error.code == .invalidSession)
        }
    }
}
