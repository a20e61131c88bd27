import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import NIOSSL
import StoatReferenceServer
import Testing

/// The client against the reference server served over TLS on loopback, with certificates made by the test
/// (``ReferenceCertificateAuthority``): one TLS configuration for REST and the socket reaches an instance with
/// its own authority, and each refused certificate is named, never a bare network failure.
@Suite("TLS: trust your own authority, and say which certificate failed", .hangBound)
struct TLSTests {
    /// A certificate the server presents, and what the client must say of it.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var hosts: [String]
        var expired = false
        var trustsAuthority = true
        var expected: String
        var testDescription: String { name }
    }

    static let refused: [Case] = [
        Case(
            name: "untrusted issuer", hosts: ["127.0.0.1", "localhost"], trustsAuthority: false,
            expected: "certificateUntrusted"),
        Case(name: "wrong name", hosts: ["wrong.example"], expected: "certificateNameMismatch"),
        Case(name: "expired", hosts: ["127.0.0.1", "localhost"], expired: true, expected: "certificateExpired"),
    ]

    static func server(_ authority: ReferenceCertificateAuthority, _ testCase: Case) async throws -> ReferenceServer {
        var configuration = ReferenceServer.Configuration()
        let now = Date()
        configuration.tlsIdentity =
            testCase.expired
            ? try authority.issue(
                for: testCase.hosts, notValidBefore: now.addingTimeInterval(-7_200),
                notValidAfter: now.addingTimeInterval(-3_600))
            : try authority.issue(for: testCase.hosts)
        return try await ReferenceServer.start(configuration)
    }

    static func configuration(trusting authority: ReferenceCertificateAuthority?) throws -> StoatClient.Configuration {
        var configuration = StoatClient.Configuration.patient
        if let authority {
            configuration.tls.additionalTrustRoots = [
                .certificates(try NIOSSLCertificate.fromPEMBytes(Array(authority.certificatePEM.utf8)))
            ]
        }
        return configuration
    }

    @Test(
        "one TLS configuration with the instance's own authority reaches it: REST and the socket, connected and sending"
    )
    func trusted() async throws {
        let authority = try ReferenceCertificateAuthority()
        let server = try await Self.server(
            authority, Case(name: "trusted", hosts: ["127.0.0.1", "localhost"], expected: ""))
        #expect(server.apiURL.scheme == "https")
        let client = StoatClient(
            apiURL: server.apiURL, configuration: try Self.configuration(trusting: authority),
            network: ManualNetworkMonitor(.online))
        let recorder = SnapshotRecorder(client.session.states)
        let runner = Task { await client.run() }
        let account = server.defaultAccount
        await client.resume(SessionCredentials(token: account.token, userID: account.userID))
        #expect(await recorder.next(.connected) != nil)
        let connections = await server.connections()
        #expect(connections.contains { $0.receivedReady }, "the socket went through TLS too (wss)")
        let sent = try await client.sendAndWait(OutgoingMessage(content: "over TLS"), to: server.lobbyChannelID)
        #expect(sent.content == "over TLS")
        runner.cancel()
        await runner.value
        await server.stop()
    }

    @Test("a refused certificate is named in the transition's cause and in the REST error", arguments: refused)
    func refusedCertificate(_ testCase: Case) async throws {
        let authority = try ReferenceCertificateAuthority()
        let server = try await Self.server(authority, testCase)
        let configuration = try Self.configuration(trusting: testCase.trustsAuthority ? authority : nil)

        let api = StoatAPI(
            baseURL: server.apiURL, requestTimeout: .failureBound, tlsConfiguration: configuration.tls)
        let error = try await apiError { () async throws(StoatAPIError) in try await api.configuration() }
        #expect(error.code.rawValue == testCase.expected, "\(error)")

        let client = StoatClient(
            apiURL: server.apiURL, configuration: configuration, network: ManualNetworkMonitor(.online))
        let recorder = SnapshotRecorder(client.session.states)
        let runner = Task { await client.run() }
        let account = server.defaultAccount
        await client.resume(SessionCredentials(token: account.token, userID: account.userID))
        let failed = await recorder.next { snapshot in
            snapshot.transitions.contains { $0.event == .temporaryFailure }
        }
        let cause = failed?.transitions.first { $0.event == .temporaryFailure }?.cause
        #expect(cause?.code.rawValue == testCase.expected, "\(String(describing: cause))")
        #expect(await server.connections().isEmpty, "no socket was opened")
        runner.cancel()
        await runner.value
        await server.stop()
    }

    @Test("the default TLS configuration waits 100 ms at most for a server's close_notify: a session stops at once")
    func shortShutdown() {
        #expect(StoatConnectionFactory.Configuration.defaultTLS.shutdownTimeout == .milliseconds(100))
        #expect(StoatClient.Configuration().tls.shutdownTimeout == .milliseconds(100))
        #expect(StoatClient.Configuration().tls.certificateVerification == .fullVerification)
    }

    @Test("the events socket names a refused certificate too, when its host is not the API's", arguments: refused)
    func socketCertificate(_ testCase: Case) async throws {
        let authority = try ReferenceCertificateAuthority()
        let server = try await Self.server(authority, testCase)
        let configuration = try Self.configuration(trusting: testCase.trustsAuthority ? authority : nil)
        // The socket's URL given as it is, as an events host apart from the API would be: no REST call first.
        let events = server.eventsURL.absoluteString
        let factory = StoatConnectionFactory(eventsURL: { events }, configuration: configuration.connection)
        let connection = factory.makeConnection(for: SessionCredentials(token: "T"), generation: 1)
        let (reports, continuation) = AsyncStream.makeStream(of: ConnectionEvent.self)
        let running = Task {
            await connection.run { continuation.yield($0) }
            continuation.finish()
        }
        var ended: SessionFailure?
        for await report in reports {
            if case .ended(let end) = report { ended = end }
        }
        await running.value
        guard case .temporary(let cause)? = ended else {
            Issue.record("not a temporary end: \(String(describing: ended))")
            return
        }
        #expect(cause.code.rawValue == testCase.expected, "\(cause)")
        await server.stop()
    }
}
