import Foundation
import StoatReferenceServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The port a test keeps while its server is down: taken from everyone else, refusing connections as no server.
/// (The fallback for a port in TIME_WAIT is the kernel's to honour and is not tested here.)
@Suite("A held port", .hangBound)
struct HeldPortTests {
    @Test("while held, no server can listen on the port and a connection is refused; once released, the server is back")
    func heldPort() async throws {
        let server = try await ReferenceServer.start()
        let port = try #require(server.apiURL.port)
        await server.stop()
        let held = try HeldPort(port)
        await #expect(throws: (any Error).self, "the port is taken while held") {
            let intruder = try await ReferenceServer.start(.init(port: port))
            await intruder.stop()
        }
        await #expect(throws: (any Error).self, "a connection is refused, as to no server") {
            _ = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/")!)
        }
        held.release()
        let back = try await ReferenceServer.start(.init(port: port))
        #expect(back.apiURL.port == port)
        await back.stop()
    }
}
