import Foundation
import LifelineCore
import Testing

@Suite("A server's identity: the API URL normalised")
struct ServerIdentityTests {
    @Test(
        "the same server however its URL is written: case, default port, trailing slashes, user information",
        arguments: [
            ("https://api.stoat.chat", "https://api.stoat.chat"),
            ("HTTPS://API.Stoat.CHAT", "https://api.stoat.chat"),
            ("https://api.stoat.chat/", "https://api.stoat.chat"),
            ("https://api.stoat.chat//", "https://api.stoat.chat"),
            ("https://api.stoat.chat:443", "https://api.stoat.chat"),
            ("https://api.stoat.chat:443/", "https://api.stoat.chat"),
            ("http://localhost:80", "http://localhost"),
            ("http://user:secret@localhost:80/", "http://localhost"),
            ("https://stoat.example/API/v0/", "https://stoat.example/API/v0"),
            ("https://stoat.example/a%2fb", "https://stoat.example/a%2Fb"),
            ("http://127.0.0.1:8081/", "http://127.0.0.1:8081"),
            ("http://[::1]:8080", "http://[::1]:8080"),
            ("https://[FE80::1]:443/", "https://[fe80::1]"),
        ])
    func normalised(url: String, canonical: String) throws {
        let server = try #require(ServerIdentity(url))
        #expect(server.description == canonical)
        #expect(ServerIdentity(canonical) == server, "the canonical form reads back to the same server")
    }

    @Test(
        "different servers: another scheme, host, port or path",
        arguments: [
            ("https://api.stoat.chat", "http://api.stoat.chat"),
            ("https://api.stoat.chat", "https://api.stoat.chat.evil.example"),
            ("https://api.stoat.chat", "https://api.stoat.chat:8443"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8081"),
            ("https://stoat.example/api", "https://stoat.example/other"),
            ("https://stoat.example/api", "https://stoat.example"),
            ("https://stoat.example/api", "https://stoat.example/API"),
        ])
    func different(first: String, second: String) throws {
        #expect(try #require(ServerIdentity(first)) != (try #require(ServerIdentity(second))))
    }

    @Test(
        "not an API URL: another scheme, no host, a bad port, a query or a fragment, spaces",
        arguments: [
            "", "api.stoat.chat", "localhost:8080", "ftp://api.stoat.chat", "wss://events.stoat.chat",
            "https://", "https:///path", "https://host:99999", "https://host:-1", "https://host:80a",
            "https://host/?x=1", "https://host/#top", "https://ho st", "https://host/a b", "https://[::1",
            "https://[::1]x", "https://host\u{0}/", "https://ho/st\n",
        ])
    func refused(url: String) {
        #expect(ServerIdentity(url) == nil)
    }

    @Test("parts: scheme, host, port only when not the default, path")
    func parts() throws {
        let server = try #require(ServerIdentity("HTTP://Stoat.Example:8080/Api/"))
        #expect(server.scheme == "http")
        #expect(server.host == "stoat.example")
        #expect(server.port == 8080)
        #expect(server.path == "/Api")
        #expect(server.authority == "stoat.example:8080")
        let plain = try #require(ServerIdentity("https://api.stoat.chat:443"))
        #expect(plain.port == nil)
        #expect(plain.path == "")
        #expect(plain.authority == "api.stoat.chat")
        #expect(try #require(ServerIdentity("http://[::1]:9000")).authority == "[::1]:9000")
    }

    @Test("named by a person: the host, host and port, or any URL of it")
    func named() throws {
        let server = try #require(ServerIdentity("http://127.0.0.1:8081"))
        #expect(server.isNamed(by: "127.0.0.1:8081"))
        #expect(server.isNamed(by: "127.0.0.1"))
        #expect(server.isNamed(by: "http://127.0.0.1:8081/"))
        #expect(!server.isNamed(by: "127.0.0.1:8080"))
        #expect(!server.isNamed(by: "https://127.0.0.1:8081"))
        #expect(!server.isNamed(by: "localhost"))
        #expect(try #require(ServerIdentity("https://API.stoat.chat")).isNamed(by: "api.STOAT.chat"))
    }

    @Test("encodes as its canonical string, and refuses to decode anything else")
    func codable() throws {
        let server = try #require(ServerIdentity("https://API.stoat.chat:443/"))
        let data = try JSONEncoder().encode([server])
        #expect(String(decoding: data, as: UTF8.self) == #"["https:\/\/api.stoat.chat"]"#)
        #expect(try JSONDecoder().decode([ServerIdentity].self, from: data) == [server])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([ServerIdentity].self, from: Data(#"["ftp://x"]"#.utf8))
        }
        // Credentials carry their issuer through Codable, and an old encoding without it still decodes.
        let credentials = SessionCredentials(token: "SECRET-TOKEN", userID: "u", issuer: server)
        let encoded = try JSONEncoder().encode(credentials)
        #expect(try JSONDecoder().decode(SessionCredentials.self, from: encoded) == credentials)
        let old = try JSONDecoder().decode(SessionCredentials.self, from: Data(#"{"token":"t"}"#.utf8))
        #expect(old.issuer == nil)
        #expect(!"\(credentials)".contains("SECRET-TOKEN"), "the description never shows the token")
        #expect("\(credentials)".contains("issuer: https://api.stoat.chat"))
    }
}
