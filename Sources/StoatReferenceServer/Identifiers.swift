#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Identifiers and secrets in Stoat's shapes.
enum Identifiers {
    private static let crockford = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    private static let tokenAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// A ULID (26 Crockford base-32 characters: 48 bits of milliseconds, 80 random bits), as Stoat's ids are.
    static func ulid(at date: Date = Date()) -> String {
        var time = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        var timePart = [UInt8](repeating: 0, count: 10)
        for index in (0..<10).reversed() {
            timePart[index] = crockford[Int(time & 31)]
            time >>= 5
        }
        let randomPart = (0..<16).map { _ in crockford[Int.random(in: 0..<32)] }
        return String(decoding: timePart + randomPart, as: UTF8.self)
    }

    /// A session token: 64 URL-safe random characters.
    static func token() -> String {
        String(decoding: (0..<64).map { _ in tokenAlphabet[Int.random(in: 0..<tokenAlphabet.count)] }, as: UTF8.self)
    }
}
