import NIOCore
import NIOPosix
import Testing

@testable import StoatReferenceServer

@Suite("Stopping the server", .timeLimit(.minutes(1)))
struct StopTests {
    @Test(
        "stop() closes a connection that never carried a request instead of waiting for the client to close it",
        arguments: [false, true])
    func idleConnectionClosed(overTLS: Bool) async throws {
        // A client's pool may hold such a connection for its idle timeout, a minute: stop() waited as long.
        var configuration = ReferenceServer.Configuration()
        if overTLS { configuration.tlsIdentity = try ReferenceCertificateAuthority().issue(for: ["localhost"]) }
        let server = try await ReferenceServer.start(configuration)
        let idle = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: server.port).get()
        await server.stop()
        // The server closed it: the client saw the end of the stream and closed its side.
        try await idle.closeFuture.get()
        #expect(!idle.isActive)
    }
}
