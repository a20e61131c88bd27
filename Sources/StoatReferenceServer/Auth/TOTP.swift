import Crypto

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Time-based one-time passwords (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits), as authenticator apps
/// compute them. The server checks MFA codes with it; tests and demos compute the code to type with it.
public enum TOTP {
    /// The code for `secret` at `date` (in the server's clock when checking against the server).
    ///
    /// - Parameters:
    ///   - secret: The shared secret's bytes.
    ///   - date: The moment the code is for.
    ///   - digits: The code's length (6 by default).
    public static func code(secret: [UInt8], at date: Date, digits: Int = 6) -> String {
        let step = UInt64(max(0, date.timeIntervalSince1970) / 30)
        let counter = withUnsafeBytes(of: step.bigEndian) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: counter, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let value =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let number = String(value % modulus)
        return String(repeating: "0", count: max(0, digits - number.count)) + number
    }

    /// Whether `code` is right for `secret` at `date`, allowing one step of drift either way.
    public static func verify(_ code: String, secret: [UInt8], at date: Date) -> Bool {
        [-30.0, 0, 30].contains { TOTP.code(secret: secret, at: date.addingTimeInterval($0)) == code }
    }
}
