/// Stoat's username rules (`crates/delta/src/routes/onboard/complete.rs` and `User::validate_username` in
/// `crates/core/database/src/models/users/model.rs`).
///
/// Pure, so tests hold it to the table of cases directly.
public enum UsernameRule {
    /// Whether `username` passes the request validation: 2 to 32 characters (Unicode scalars), each a letter of
    /// any script, a decimal digit, `_`, `.` or `-`. A failure answers `FailedValidation`.
    public static func isValid(_ username: String) -> Bool {
        let scalars = username.unicodeScalars
        guard (2...32).contains(scalars.count) else { return false }
        return scalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber:
                true
            default:
                scalar == "_" || scalar == "." || scalar == "-"
            }
        }
    }

    /// Whether `username` is blocked: `admin`, `revolt` or `stoat` in any case, or containing three backticks,
    /// an invite domain (`discord.gg`, `rvlt.gg`, `guilded.gg`, `stt.gg`), `revolt.chat`, `stoat.chat` or
    /// `http(s)://`, in any case. A blocked name answers `InvalidUsername`.
    public static func isBlocked(_ username: String) -> Bool {
        let lowered = username.lowercased()
        if ["admin", "revolt", "stoat"].contains(lowered) { return true }
        let patterns = [
            "```", "discord.gg", "rvlt.gg", "guilded.gg", "stt.gg", "revolt.chat", "stoat.chat", "http://", "https://",
        ]
        return patterns.contains { lowered.contains($0) }
    }

    /// The discriminators stoatchat hands out: `0002` to `9998`, without `0123`, `1234`, `1488` and the
    /// repeated digits `1111` to `8888` (9 986 in all).
    public static let discriminators: Set<String> = {
        var set = Set((2...9998).map(fourDigits))
        for blocked in [123, 1234, 1111, 2222, 3333, 4444, 5555, 6666, 7777, 8888, 9999, 1488] {
            set.remove(fourDigits(blocked))
        }
        return set
    }()

    /// `value` with leading zeros to four digits.
    static func fourDigits(_ value: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
