/// Stoat's username rule: 2 to 32 characters, each a letter (any script), a decimal digit, `_`, `.` or `-`.
///
/// Pure, so tests hold it to the table of cases directly.
public enum UsernameRule {
    /// Whether `username` is acceptable. Length counts Unicode scalars, as Stoat's validator does.
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
}
