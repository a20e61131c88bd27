public import NIOCore

/// Who may call the admin API, and how: loopback peers only, naming a loopback `Host`, from no foreign
/// `Origin`, with JSON bodies.
///
/// The peer check keeps other machines out; the `Host` check defeats DNS rebinding (a page on `evil.example`
/// whose name now points at 127.0.0.1 still sends `Host: evil.example`); the `Origin` check and the required
/// `Content-Type: application/json` defeat cross-site requests from a browser on the same machine (a form or a
/// simple `fetch` cannot send that content type without a preflight the server never grants).
public enum AdminAccess {
    /// Why a request to the admin API was refused.
    public enum Refusal: Sendable, Equatable {
        /// The peer is not a loopback address.
        case foreignPeer
        /// The `Host` header is missing or not a loopback name.
        case foreignHost
        /// The `Origin` header names a non-loopback origin.
        case foreignOrigin
        /// A `POST` without `Content-Type: application/json`.
        case notJSON

        /// The HTTP status of the refusal: 415 for ``notJSON``, 403 otherwise.
        public var status: Int { self == .notJSON ? 415 : 403 }
    }

    /// Checks a request to the admin API; nil when it may go ahead.
    public static func refusal(
        peer: SocketAddress?, host: String?, origin: String?, isPost: Bool, contentType: String?
    ) -> Refusal? {
        guard isAllowed(peer) else { return .foreignPeer }
        guard isLoopbackHost(host) else { return .foreignHost }
        guard isAllowedOrigin(origin) else { return .foreignOrigin }
        if isPost, !isJSON(contentType) { return .notJSON }
        return nil
    }

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

    /// Whether a `Host` header names loopback: `localhost`, `127.x.x.x` or `[::1]`, with any port.
    public static func isLoopbackHost(_ host: String?) -> Bool {
        guard let host, !host.isEmpty else { return false }
        return isLoopbackName(stripPort(host))
    }

    /// Whether an `Origin` header is acceptable: absent, or `http(s)://` a loopback name with any port.
    public static func isAllowedOrigin(_ origin: String?) -> Bool {
        guard let origin else { return true }
        let lowered = origin.lowercased()
        for scheme in ["http://", "https://"] where lowered.hasPrefix(scheme) {
            let authority = String(lowered.dropFirst(scheme.count))
            guard !authority.contains("/"), !authority.contains("@") else { return false }
            return isLoopbackName(stripPort(authority))
        }
        return false
    }

    /// Whether a `Content-Type` is `application/json`, parameters allowed.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";").first.map { String($0) } ?? ""
        return type.trimmingSpaces.lowercased() == "application/json"
    }

    /// A host without its port: `[::1]:80` → `::1`, `localhost:80` → `localhost`.
    private static func stripPort(_ authority: String) -> String {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return authority }
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return "" }
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return "" }
        if parts.count == 2, !parts[1].allSatisfy(\.isNumber) { return "" }
        return String(parts[0])
    }

    private static func isLoopbackName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if lowered == "localhost" || lowered == "::1" { return true }
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) })
        else { return false }
        let values = octets.compactMap { UInt8($0) }
        return values.count == 4 && values[0] == 127
    }

    static func isLoopbackV4(_ hostOrder: UInt32) -> Bool {
        hostOrder >> 24 == 127
    }
}

extension String {
    /// The text without surrounding spaces.
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
