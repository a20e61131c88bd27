import Foundation
import TestProcess
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--request-timeout`: how long a REST request, the login's too, may wait for its answer.
@Suite("lifeline connect --request-timeout", .hangBound)
struct ConnectRequestTimeoutTests {
    @Test("a login to a server that never answers fails with timeout after --request-timeout; 0 is a usage error")
    func loginTimesOut() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let run = try ConnectRun(
            [
                "--api", "http://127.0.0.1:\(silent.port)", "--email", "me@lifeline.test", "--network", "manual",
                "--request-timeout", "1",
            ],
            environment: ["LIFELINE_PASSWORD": "never-sent-anywhere-else"])
        let failure = try #require(await run.next { $0["type"] as? String == "login_failed" })
        #expect(failure["code"] as? String == "timeout")
        #expect(await run.exitStatus() == 1)

        let refused = try await Executable.run([
            "connect", "--api", "http://127.0.0.1:\(silent.port)", "--token=t", "--request-timeout", "0",
        ])
        #expect(refused.status == 64, "a usage error")
        #expect(refused.standardError.contains("--request-timeout must be a positive number of seconds"))
    }
}

/// A TCP port on the loopback that takes connections (the kernel's backlog accepts them) and never answers.
final class SilentListener: Sendable {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        try #require(descriptor >= 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) }
        }
        try #require(bound == 0 && listen(descriptor, 64) == 0)
        var length = size
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        try #require(named == 0)
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
    }
}
