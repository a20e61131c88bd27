public import NIOCore

/// Who may call the admin API: loopback peers only.
public enum AdminAccess {
    /// Whether `peer` is a loopback address (127.0.0.0/8, `::1`, an IPv4-mapped loopback) or a Unix domain
    /// socket. An unknown peer is refused.
    public static func isAllowed(_ peer: SocketAddress?) -> Bool {
        guard let peer else { return false }
        switch peer {
        case .unixDomainSocket:
            return true
        case .v4(let address):
            return isLoopbackV4(UInt32(bigEndian: address.address.sin_addr.s_addr))
        case .v6(let address):
            let bytes = withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
            guard Array(bytes[0..<12]) == mappedPrefix else { return false }
            return bytes[12] == 127
        }
    }

    static func isLoopbackV4(_ hostOrder: UInt32) -> Bool {
        hostOrder >> 24 == 127
    }
}
