import Foundation
import StoatReferenceServer
import TestProcess
import Testing

/// `--ca-file PEM` reaches a self-hosted instance with its own authority (the reference server over TLS, with
/// certificates made by the test); without it, the transition's cause names the untrusted certificate.
@Suite("lifeline connect and operations --ca-file", .hangBound)
struct CAFileTests {
    /// A reference server over TLS on loopback, and its authority's certificate in a PEM file.
    final class TLSServer: Sendable {
        let server: ReferenceServer
        let caFile: String

        init() async throws {
            let authority = try ReferenceCertificateAuthority()
            var configuration = ReferenceServer.Configuration()
            configuration.tlsIdentity = try authority.issue(for: ["localhost", "127.0.0.1"])
            server = try await ReferenceServer.start(configuration)
            caFile = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-ca-\(UUID()).pem").path
            try authority.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(atPath: caFile) }
    }

    @Test("connect --ca-file reaches the instance; without it the cause is certificateUntrusted, not a network failure")
    func connect() async throws {
        let tls = try await TLSServer()
        let server = tls.server
        let base =
            ["--api", server.apiURL.absoluteString, "--token=\(server.defaultAccount.token)"] + ConnectCommandTests.fast

        let trusted = try ConnectRun(base + ["--ca-file", tls.caFile])
        #expect(await trusted.transition(to: "CONNECTED") != nil, "\(trusted.printed)")
        #expect(await trusted.quit() == 0)

        let untrusted = try ConnectRun(base)
        let failed = try #require(await untrusted.next { $0["event"] as? String == "TEMPORARY_FAILURE" })
        let cause = try #require(failed["cause"] as? [String: Any])
        #expect(cause["code"] as? String == "certificateUntrusted", "\(cause)")
        #expect(await untrusted.quit() == 0)
        await server.stop()
    }

    @Test("operations --ca-file lists the instance's operations; without it the failure names the certificate")
    func operations() async throws {
        let tls = try await TLSServer()
        let server = tls.server
        let account = server.defaultAccount
        let operation = await server.addOperation(kind: "invite", userID: account.userID, expiresIn: .seconds(600))
        let process = ChildProcess()
        process.executableURL = try Executable.url
        process.arguments = [
            "operations", "--api", server.apiURL.absoluteString, "--json", "--ca-file", tls.caFile,
            "--request-timeout", "120",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["LIFELINE_TOKEN": account.token]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var lines = LineReader(output.fileHandleForReading).lines.makeAsyncIterator()
        let first = try #require(await lines.next())
        #expect(first.contains(operation.id), "\(first)")
        process.terminate()
        await process.exited()

        let untrusted = try await Executable.run(
            ["operations", "--api", server.apiURL.absoluteString, "--token=\(account.token)"])
        #expect(untrusted.status == 1)
        #expect(untrusted.standardError.contains("certificateUntrusted"), "\(untrusted.standardError)")
        await server.stop()
    }

    @Test("a --ca-file that is not a PEM file of certificates is refused before anything runs")
    func badFile() async throws {
        let missing = try await Executable.run(
            ["connect", "--api", "https://localhost:1", "--token=t", "--ca-file", "/nonexistent/ca.pem"])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("--ca-file"))
        let notPEM = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-not-pem-\(UUID())").path
        try "not a certificate".write(toFile: notPEM, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: notPEM) }
        let wrong = try await Executable.run([
            "operations", "--api", "https://localhost:1", "--token=t", "--ca-file", notPEM,
        ])
        #expect(wrong.status != 0)
        #expect(wrong.standardError.contains("--ca-file"))
    }
}
