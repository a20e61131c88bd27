internal import Crypto
internal import CryptoExtras
internal import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How a password becomes the key that wraps an account's data key: the function and its cost.
///
/// The function's name and parameters are stored beside the wrapped key, so a database opened with a
/// stronger setting than it was written with is re-wrapped at that unlock (see
/// ``AccountStore/Configuration/keyDerivation``).
///
/// - ``default``: PBKDF2-HMAC-SHA512 with 210 000 rounds (OWASP's recommendation), about 30 ms on a
///   server core.
/// - ``pbkdf2SHA512(rounds:)`` and ``scrypt(logN:blockSize:parallelism:)`` for stronger settings; both refuse
///   parameters below the recommended minimum and above the ceilings.
/// - ``unsafeUncheckedPBKDF2SHA512(rounds:)`` and ``unsafeUncheckedScrypt(logN:blockSize:parallelism:)``
///   accept costs below the minimum. They exist for tests, which would otherwise spend a second per sign-in;
///   never ship them.
///
/// ## One set of bounds
///
/// Every setting, checked or not, lies within the same ceilings the unlock enforces on a stored keyring:
/// PBKDF2 at most ``maximumPBKDF2Rounds`` rounds; scrypt with N at most 2^``maximumScryptLogN``, r·p at most
/// ``maximumScryptBlockSizeTimesParallelism`` and at most ``maximumScryptMemory`` bytes (128·r·N). A setting
/// the store can write is therefore one it can read back, and a keyring planted in the file cannot make an
/// unlock allocate gigabytes or run for minutes: it is an unsupported keyring at once (see
/// <doc:LifelineStore#Key-derivation-bounds>).
public struct KeyDerivation: Sendable, Hashable, CustomStringConvertible {
    enum Algorithm: Hashable, Sendable {
        case pbkdf2SHA512(rounds: Int)
        case scrypt(logN: Int, blockSize: Int, parallelism: Int)
    }

    let algorithm: Algorithm

    /// Creates a setting; internal, for tests that need one outside the bounds. Use the static constructors.
    init(algorithm: Algorithm) {
        self.algorithm = algorithm
    }

    /// The fewest PBKDF2-HMAC-SHA512 rounds ``pbkdf2SHA512(rounds:)`` accepts: 210 000 (OWASP).
    public static let minimumPBKDF2Rounds = 210_000

    /// The most PBKDF2-HMAC-SHA512 rounds any setting may have, written or read: 10 000 000, about 1.5 s here.
    public static let maximumPBKDF2Rounds = 10_000_000

    /// The smallest scrypt cost exponent ``scrypt(logN:blockSize:parallelism:)`` accepts: 17, that is N = 2¹⁷
    /// with r = 8, p = 1 (OWASP), 128 MiB per derivation.
    public static let minimumScryptLogN = 17

    /// The largest scrypt cost exponent any setting may have, written or read: 20 (N = 2²⁰).
    public static let maximumScryptLogN = 20

    /// The largest product of scrypt's r and p any setting may have, written or read: 16.
    public static let maximumScryptBlockSizeTimesParallelism = 16

    /// The most memory an scrypt setting may need (128·r·N bytes), written or read: 1 GiB.
    public static let maximumScryptMemory = 1 << 30

    /// PBKDF2-HMAC-SHA512 with ``minimumPBKDF2Rounds`` rounds.
    public static let `default` = KeyDerivation(algorithm: .pbkdf2SHA512(rounds: minimumPBKDF2Rounds))

    /// PBKDF2-HMAC-SHA512 with the given number of rounds.
    ///
    /// - Parameter rounds: From ``minimumPBKDF2Rounds`` to ``maximumPBKDF2Rounds``.
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/invalidParameter`` outside that range.
    public static func pbkdf2SHA512(rounds: Int) throws(StoreError) -> KeyDerivation {
        guard rounds >= minimumPBKDF2Rounds else {
            throw StoreError(code: .invalidParameter, message: "PBKDF2 needs at least \(minimumPBKDF2Rounds) rounds")
        }
        let setting = KeyDerivation(algorithm: .pbkdf2SHA512(rounds: rounds))
        try setting.checkBounds()
        return setting
    }

    /// scrypt with N = 2^`logN`.
    ///
    /// - Parameters:
    ///   - logN: The cost exponent, from ``minimumScryptLogN`` to ``maximumScryptLogN``.
    ///   - blockSize: scrypt's r, at least 8.
    ///   - parallelism: scrypt's p, at least 1.
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/invalidParameter`` below the minimum or above a
    ///   ceiling (r·p at most ``maximumScryptBlockSizeTimesParallelism``, 128·r·N at most
    ///   ``maximumScryptMemory``).
    public static func scrypt(
        logN: Int = minimumScryptLogN, blockSize: Int = 8, parallelism: Int = 1
    )
        throws(StoreError) -> KeyDerivation
    {
        guard logN >= minimumScryptLogN, blockSize >= 8, parallelism >= 1 else {
            throw StoreError(
                code: .invalidParameter,
                message: "scrypt needs at least N = 2^\(minimumScryptLogN), r = 8, p = 1"
            )
        }
        let setting = KeyDerivation(algorithm: .scrypt(logN: logN, blockSize: blockSize, parallelism: parallelism))
        try setting.checkBounds()
        return setting
    }

    /// PBKDF2-HMAC-SHA512 with any number of rounds up to the ceiling. For tests only: a low count makes
    /// passwords cheap to guess.
    ///
    /// - Parameter rounds: The number of rounds, clamped to 1…``maximumPBKDF2Rounds``.
    public static func unsafeUncheckedPBKDF2SHA512(rounds: Int) -> KeyDerivation {
        KeyDerivation(algorithm: .pbkdf2SHA512(rounds: min(max(1, rounds), maximumPBKDF2Rounds)))
    }

    /// scrypt with any cost up to the ceilings. For tests only: a low cost makes passwords cheap to guess.
    ///
    /// - Parameters:
    ///   - logN: The cost exponent (N = 2^logN), clamped to 1…``maximumScryptLogN``.
    ///   - blockSize: scrypt's r, at least 1.
    ///   - parallelism: scrypt's p, at least 1.
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/invalidParameter`` when r·p or the memory exceed
    ///   their ceilings.
    public static func unsafeUncheckedScrypt(
        logN: Int, blockSize: Int, parallelism: Int
    ) throws(StoreError)
        -> KeyDerivation
    {
        let setting = KeyDerivation(
            algorithm: .scrypt(
                logN: min(max(1, logN), maximumScryptLogN),
                blockSize: max(1, blockSize),
                parallelism: max(1, parallelism)
            )
        )
        try setting.checkBounds()
        return setting
    }

    /// Checks the setting against the ceilings every stored keyring must meet: the one check for writing and
    /// for reading.
    ///
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/invalidParameter`` when a parameter is out of range.
    func checkBounds() throws(StoreError) {
        switch algorithm {
        case .pbkdf2SHA512(let rounds):
            guard (1...Self.maximumPBKDF2Rounds).contains(rounds) else {
                throw StoreError(
                    code: .invalidParameter,
                    message: "PBKDF2 rounds must be from 1 to \(Self.maximumPBKDF2Rounds)"
                )
            }
        case .scrypt(let logN, let r, let p):
            // Each factor is checked before the products, so none of them can overflow.
            guard (1...Self.maximumScryptLogN).contains(logN),
                (1...Self.maximumScryptBlockSizeTimesParallelism).contains(r),
                (1...Self.maximumScryptBlockSizeTimesParallelism).contains(p),
                r * p <= Self.maximumScryptBlockSizeTimesParallelism,
                128 * r << logN <= Self.maximumScryptMemory
            else {
                throw StoreError(
                    code: .invalidParameter,
                    message: """
                        scrypt needs logN from 1 to \(Self.maximumScryptLogN), \
                        r·p at most \(Self.maximumScryptBlockSizeTimesParallelism) and 128·r·N at most 1 GiB
                        """
                )
            }
        }
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
        // The password's bytes are zeroed once the key is derived; the caller's `String` cannot be.
        var passwordBytes = [UInt8](password.precomposedStringWithCanonicalMapping.utf8)
        defer { passwordBytes.withUnsafeMutableBytes { zeroize($0) } }
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

    /// Reads a stored name and parameters; nil when the name is unknown, a parameter is missing, or the setting
    /// is outside the bounds ``checkBounds()`` enforces when writing.
    init?(name: String, parameters: String) {
        var values: [String: Int] = [:]
        for pair in parameters.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Int(parts[1]) else { return nil }
            values[String(parts[0])] = value
        }
        switch name {
        case "pbkdf2-sha512":
            guard values.count == 1, let rounds = values["rounds"] else { return nil }
            self.init(algorithm: .pbkdf2SHA512(rounds: rounds))
        case "scrypt":
            guard values.count == 3, let logN = values["logN"], let r = values["r"], let p = values["p"] else {
                return nil
            }
            self.init(algorithm: .scrypt(logN: logN, blockSize: r, parallelism: p))
        default:
            return nil
        }
        // The same bounds as for writing: what the store can write, it can read; nothing beyond.
        do {
            try checkBounds()
        } catch {
            return nil
        }
    }
}

/// Overwrites memory that held secret bytes with zeros, with a call the optimiser may not remove.
func zeroize(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
    #if canImport(Darwin)
        _ = memset_s(base, buffer.count, 0, buffer.count)
    #else
        explicit_bzero(base, buffer.count)
    #endif
}
