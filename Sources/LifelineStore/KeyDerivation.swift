internal import Crypto
internal import CryptoExtras
internal import Foundation

/// How a password becomes the key that wraps an account's data key: the function and its cost.
///
/// The function's name and parameters are stored beside the wrapped key, so a database opened with a
/// stronger setting than it was written with is re-wrapped at that unlock (see
/// ``AccountStore/Configuration/keyDerivation``).
///
/// - ``default``: PBKDF2-HMAC-SHA512 with 210 000 rounds (OWASP's recommendation), about 30 ms on a
///   server core.
/// - ``pbkdf2SHA512(rounds:)`` and ``scrypt(logN:blockSize:parallelism:)`` for stronger settings; both refuse
///   parameters below the recommended minimum.
/// - ``unsafeUncheckedPBKDF2SHA512(rounds:)`` and ``unsafeUncheckedScrypt(logN:blockSize:parallelism:)``
///   accept any cost. They exist for tests, which would otherwise spend a second per sign-in; never ship them.
public struct KeyDerivation: Sendable, Hashable, CustomStringConvertible {
    enum Algorithm: Hashable, Sendable {
        case pbkdf2SHA512(rounds: Int)
        case scrypt(logN: Int, blockSize: Int, parallelism: Int)
    }

    let algorithm: Algorithm

    /// The fewest PBKDF2-HMAC-SHA512 rounds ``pbkdf2SHA512(rounds:)`` accepts: 210 000 (OWASP).
    public static let minimumPBKDF2Rounds = 210_000

    /// The smallest scrypt cost exponent ``scrypt(logN:blockSize:parallelism:)`` accepts: 17, that is N = 2¹⁷
    /// with r = 8, p = 1 (OWASP), 128 MiB per derivation.
    public static let minimumScryptLogN = 17

    /// PBKDF2-HMAC-SHA512 with ``minimumPBKDF2Rounds`` rounds.
    public static let `default` = KeyDerivation(algorithm: .pbkdf2SHA512(rounds: minimumPBKDF2Rounds))

    /// PBKDF2-HMAC-SHA512 with the given number of rounds.
    ///
    /// - Parameter rounds: At least ``minimumPBKDF2Rounds``.
    /// - Throws: ``StoreError`` with code ``StoreError/Code/invalidParameter`` below the minimum.
    public static func pbkdf2SHA512(rounds: Int) throws(StoreError) -> KeyDerivation {
        guard rounds >= minimumPBKDF2Rounds else {
            throw StoreError(code: .invalidParameter, message: "PBKDF2 needs at least \(minimumPBKDF2Rounds) rounds")
        }
        return KeyDerivation(algorithm: .pbkdf2SHA512(rounds: rounds))
    }

    /// scrypt with N = 2^`logN`.
    ///
    /// - Parameters:
    ///   - logN: The cost exponent, at least ``minimumScryptLogN``.
    ///   - blockSize: scrypt's r, at least 8.
    ///   - parallelism: scrypt's p, at least 1.
    /// - Throws: ``StoreError`` with code ``StoreError/Code/invalidParameter`` below the minimum.
    public static func scrypt(logN: Int = minimumScryptLogN, blockSize: Int = 8, parallelism: Int = 1)
        throws(StoreError) -> KeyDerivation
    {
        guard logN >= minimumScryptLogN, blockSize >= 8, parallelism >= 1 else {
            throw StoreError(
                code: .invalidParameter,
                message: "scrypt needs at least N = 2^\(minimumScryptLogN), r = 8, p = 1"
            )
        }
        return unsafeUncheckedScrypt(logN: logN, blockSize: blockSize, parallelism: parallelism)
    }

    /// PBKDF2-HMAC-SHA512 with any number of rounds. For tests only: a low count makes passwords cheap to guess.
    ///
    /// - Parameter rounds: The number of rounds, at least 1.
    public static func unsafeUncheckedPBKDF2SHA512(rounds: Int) -> KeyDerivation {
        KeyDerivation(algorithm: .pbkdf2SHA512(rounds: max(1, rounds)))
    }

    /// scrypt with any cost. For tests only: a low cost makes passwords cheap to guess.
    ///
    /// - Parameters:
    ///   - logN: The cost exponent (N = 2^logN), from 1 to 24.
    ///   - blockSize: scrypt's r, at least 1.
    ///   - parallelism: scrypt's p, at least 1.
    public static func unsafeUncheckedScrypt(logN: Int, blockSize: Int, parallelism: Int) -> KeyDerivation {
        KeyDerivation(
            algorithm: .scrypt(
                logN: min(max(1, logN), 24),
                blockSize: max(1, blockSize),
                parallelism: max(1, parallelism)
            )
        )
    }

    /// Whether this setting is at least as strong as OWASP's recommendation (the checked constructors' minimum).
    public var meetsRecommendedMinimum: Bool {
        switch algorithm {
        case .pbkdf2SHA512(let rounds):
            rounds >= Self.minimumPBKDF2Rounds
        case .scrypt(let logN, let blockSize, let parallelism):
            logN >= Self.minimumScryptLogN && blockSize >= 8 && parallelism >= 1
        }
    }

    /// The function and its parameters, for example `pbkdf2-sha512(rounds=210000)`.
    public var description: String { "\(name)(\(parameters))" }

    /// Whether a key wrapped with this setting needs no re-wrap to meet `target`: the same function, with
    /// every cost parameter at least the target's.
    func isAtLeast(_ target: KeyDerivation) -> Bool {
        switch (algorithm, target.algorithm) {
        case (.pbkdf2SHA512(let rounds), .pbkdf2SHA512(let targetRounds)):
            rounds >= targetRounds
        case (.scrypt(let logN, let r, let p), .scrypt(let targetLogN, let targetR, let targetP)):
            logN >= targetLogN && r >= targetR && p >= targetP
        default:
            false
        }
    }

    /// Derives the 256-bit key-encryption key from a password.
    ///
    /// The password is normalised to Unicode NFC first, so the same password typed on two systems that
    /// compose accents differently gives the same key.
    func deriveKey(password: String, salt: Data) throws -> SymmetricKey {
        let passwordBytes = Data(password.precomposedStringWithCanonicalMapping.utf8)
        switch algorithm {
        case .pbkdf2SHA512(let rounds):
            return try KDF.Insecure.PBKDF2.deriveKey(
                from: passwordBytes,
                salt: salt,
                using: .sha512,
                outputByteCount: 32,
                unsafeUncheckedRounds: rounds
            )
        case .scrypt(let logN, let blockSize, let parallelism):
            return try KDF.Scrypt.deriveKey(
                from: passwordBytes,
                salt: salt,
                outputByteCount: 32,
                rounds: 1 << logN,
                blockSize: blockSize,
                parallelism: parallelism
            )
        }
    }
}

// MARK: - Stored form

extension KeyDerivation {
    /// The function's name as stored in the keyring.
    var name: String {
        switch algorithm {
        case .pbkdf2SHA512: "pbkdf2-sha512"
        case .scrypt: "scrypt"
        }
    }

    /// The parameters as stored in the keyring: `rounds=210000`, `logN=17,r=8,p=1`.
    var parameters: String {
        switch algorithm {
        case .pbkdf2SHA512(let rounds): "rounds=\(rounds)"
        case .scrypt(let logN, let r, let p): "logN=\(logN),r=\(r),p=\(p)"
        }
    }

    /// The most any stored parameter may ask for. A damaged or hostile keyring could otherwise make an unlock
    /// run for hours or allocate gigabytes.
    static let storedRoundsCeiling = 50_000_000
    static let storedScryptLogNCeiling = 22
    static let storedScryptFactorCeiling = 64

    /// Reads a stored name and parameters; nil when the name is unknown or a parameter is missing or out of range.
    init?(name: String, parameters: String) {
        var values: [String: Int] = [:]
        for pair in parameters.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Int(parts[1]) else { return nil }
            values[String(parts[0])] = value
        }
        switch name {
        case "pbkdf2-sha512":
            guard values.count == 1, let rounds = values["rounds"], (1...Self.storedRoundsCeiling).contains(rounds)
            else { return nil }
            self.init(algorithm: .pbkdf2SHA512(rounds: rounds))
        case "scrypt":
            guard values.count == 3, let logN = values["logN"], let r = values["r"], let p = values["p"],
                (1...Self.storedScryptLogNCeiling).contains(logN),
                (1...Self.storedScryptFactorCeiling).contains(r),
                (1...Self.storedScryptFactorCeiling).contains(p)
            else { return nil }
            self.init(algorithm: .scrypt(logN: logN, blockSize: r, parallelism: p))
        default:
            return nil
        }
    }
}
