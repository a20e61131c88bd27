/// Email addresses as stoatchat matches them (`normalise_email`).
enum EmailAddress {
    /// The normalised form: in the part before the first `@` that follows a non-`@` character, a `+` suffix and
    /// every dot are removed; the whole is lowercased. Nil when there is no such `@` with something after it,
    /// where stoatchat's `unwrap` panics and Rocket answers 500.
    static func normalised(_ email: String) -> String? {
        let characters = Array(email)
        // The leftmost match of `([^@]+)(@.+)`: the first non-@ run that is followed by an @ and one more character.
        var start = 0
        while start < characters.count {
            guard characters[start] != "@" else {
                start += 1
                continue
            }
            var end = start
            while end < characters.count, characters[end] != "@" { end += 1 }
            if end < characters.count, end + 1 < characters.count {
                var local = String(characters[start..<end])
                if let plus = local.firstIndex(of: "+"), local.index(after: plus) < local.endIndex {
                    local = String(local[..<plus])
                }
                local.removeAll { $0 == "." }
                return (local + String(characters[end...])).lowercased()
            }
            start = end + 1
        }
        return nil
    }
}
