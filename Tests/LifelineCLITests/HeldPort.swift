import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback port kept while the server that listened on it is down, so that a test which brings the server back
/// on the same port (where a client's store knows it) cannot find it taken by another test's server in between.
///
/// The socket is bound and never listens: a connection to the port is refused, as to no server at all, and the
/// kernel gives the port to no one else. CI saw the race this closes: the server stopped, a parallel test's server
/// was given the freed port, and the restart failed with `EADDRINUSE`.
final class HeldPort {
    private var descriptor: Int32

    /// Binds `port` on 127.0.0.1; call it right after the server has stopped.
    ///
    /// The bind is exclusive, so no other socket can take the port. When the stopped server's connections linger
    /// in TIME_WAIT on it, that bind is refused, and the port is held with `SO_REUSEADDR` instead: a server could
    /// then still bind it by asking for it by number, but the kernel never hands it out as a free port (Linux
    /// shares a port held so only with an explicit bind, unless `net.ipv4.ip_autobind_reuse` is set), which is how
    /// the race took it.
    init(_ port: Int) throws {
        do {
            descriptor = try Self.held(port, reusingAddress: false)
        } catch let error as POSIXError where error.code == .EADDRINUSE {
            descriptor = try Self.held(port, reusingAddress: true)
        }
    }

    private static func held(_ port: Int, reusingAddress: Bool) throws -> Int32 {
        #if canImport(Glibc)
            let stream = Int32(SOCK_STREAM.rawValue)
        #else
            let stream = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        if reusingAddress {
            var one: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw POSIXError(.init(rawValue: code) ?? .EADDRINUSE)
        }
        return descriptor
    }

    /// Gives the port back; call it right before the server starts on it again.
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
