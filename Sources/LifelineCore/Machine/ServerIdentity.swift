/// The server an API URL names, normalised: the identity a session token and an account's store are bound to.
///
/// Two API URLs name the same server when their scheme, host, port and path agree after normalisation:
///
/// | part | normalised |
/// |---|---|
/// | scheme | lower case; `http` or `https` only |
/// | host | lower case; an IPv6 address without its brackets |
/// | port | the scheme's default (80 for `http`, 443 for `https`) elided |
/// | path | as written (percent escapes in upper case), without trailing slashes |
///
/// User information (`user:password@`) is not part of the identity and never kept; a URL with a query or a
/// fragment names no API and is refused. So `HTTPS://API.Stoat.chat:443/` and `https://api.stoat.chat` are
/// the same server, while `https://stoat.example/api` and `https://stoat.example/other` are two.
///
/// ```swift
/// let server = ServerIdentity("https://API.stoat.chat/")!
/// print(server)            // https://api.stoat.chat
/// print(server.authority)  // api.stoat.chat
/// ```
///
/// A session remembers the server that issued it (``SessionCredentials/issuer``), so its token is sent to
/// that server only; an account's store file belongs to one server. The ``description`` is the canonical
/// form: ``init(_:)`` reads it back to an equal value.
public struct ServerIdentity: Sendable, Hashable, Codable, LosslessStringConvertible, Comparable {
    /// `http` or `https`, in lower case.
    public let scheme: String
    /// The host in lower case: a name, an IPv4 address, or an IPv6 address without brackets.
    public let host: String
    /// The port when it is not the scheme's default; `nil` for the default.
    public let port: Int?
    /// The path without trailing slashes (`""` for the root), percent escapes in upper case.
    public let path: String

    /// Reads an API URL and normalises it.
    ///
    /// - Parameter url: An absolute `http` or `https` URL (in any case), with a host; a port from 0 to
    ///   65535; no query and no fragment.
    /// - Returns: `nil` when `url` is not such a URL.
    public init?(_ url: String) {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = url[schemeEnd.upperBound...]
        guard !rest.contains("?"), !rest.contains("#"),
            rest.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
        else { return nil }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        var portText: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return nil }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty, host.unicodeScalars.allSatisfy(Self.isHostCharacter) else { return nil }
        }
        var port: Int?
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(portText),
                value <= 65535
            else { return nil }
            port = value
        }
        self.init(validatedScheme: scheme, host: host.lowercased(), port: port, path: rest[authorityEnd...])
    }

    /// Builds an identity from parts already known to be well formed: normalises the port and the path.
    private init(validatedScheme scheme: String, host: String, port: Int?, path: Substring) {
        self.scheme = scheme
        self.host = host
        self.port = port == Self.defaultPort(scheme) ? nil : port
        var path = Self.uppercasingPercentEscapes(path)
        while path.hasSuffix("/") { path.removeLast() }
        self.path = path
    }

    /// The canonical URL: `scheme://host[:port][path]`, an IPv6 host in brackets.
    public var description: String {
        "\(scheme)://\(authority)\(path)"
    }

    /// The host and the port when it is not the default (`api.stoat.chat`, `127.0.0.1:8080`, `[::1]:8080`):
    /// how people name a server, and what `lifeline connect --account LABEL@HOST` takes.
    public var authority: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(shownHost):\($0)" } ?? shownHost
    }

    /// Whether `name` names this server as a person would write it: its ``authority``, its host alone, or any
    /// URL that normalises to it.
    ///
    /// - Parameter name: A host (`api.stoat.chat`), a host and port (`127.0.0.1:8080`), or an API URL.
    public func isNamed(by name: String) -> Bool {
        let lowered = name.lowercased()
        if lowered == authority || lowered == host { return true }
        return ServerIdentity(name) == self
    }

    /// Orders servers by their canonical form, for stable listings.
    public static func < (lhs: ServerIdentity, rhs: ServerIdentity) -> Bool {
        lhs.description < rhs.description
    }

    /// Decodes the canonical form (a string), refusing anything ``init(_:)`` refuses.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let server = ServerIdentity(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not an http or https API URL")
        }
        self = server
    }

    /// Encodes the canonical form, as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    // MARK: Normalisation

    private static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// A registered name's or IPv4 address's characters (RFC 3986's unreserved, sub-delims and `%`), in ASCII.
    private static func isHostCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "_", "~", "%", "!", "$", "&", "'", "(", ")", "*", "+", ",",
            ";", "=":
            true
        default: false
        }
    }

    private static func uppercasingPercentEscapes(_ path: Substring) -> String {
        var result = ""
        var remaining = 0
        for character in path {
            if remaining > 0 {
                result.append(contentsOf: character.uppercased())
                remaining -= 1
            } else {
                if character == "%" { remaining = 2 }
                result.append(character)
            }
        }
        return result
    }
}
