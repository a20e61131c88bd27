import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A salted password hash: SHA-256 over a random 16-byte salt and the password, stored as
/// `sha256$<salt hex>$<digest hex>`.
///
/// A reference server for tests, not a production store: one SHA-256 keeps logins fast in tests while the
/// password itself is never kept.
struct PasswordHash: Sendable, Equatable, Codable {
    let encoded: String

    init(encoded: String) {
        self.encoded = encoded
    }

    static func make(_ password: String) -> PasswordHash {
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        return PasswordHash(encoded: "sha256$\(hex(salt))$\(hex(digest(salt: salt, password: password)))")
    }

    func verify(_ password: String) -> Bool {
        let parts = encoded.split(separator: "$")
        guard parts.count == 3, parts[0] == "sha256", let salt = bytes(fromHex: parts[1]) else { return false }
        let candidate = Self.hex(Self.digest(salt: salt, password: password))
        // Compare every byte so the time taken does not say how much matched.
        let expected = Array(parts[2].utf8)
        let actual = Array(candidate.utf8)
        guard expected.count == actual.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(expected, actual) { difference |= left ^ right }
        return difference == 0
    }

    private static func digest(salt: [UInt8], password: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: salt)
        hasher.update(data: Array(password.utf8))
        return Array(hasher.finalize())
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        characters.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    private func bytes(fromHex hex: Substring) -> [UInt8]? {
        let utf8 = Array(hex.utf8)
        guard utf8.count.isMultiple(of: 2) else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(utf8.count / 2)
        for index in stride(from: 0, to: utf8.count, by: 2) {
            guard let byte = UInt8(String(decoding: utf8[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            result.append(byte)
        }
        return result
    }
}
