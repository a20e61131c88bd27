extension User {
    /// Applies a `UserUpdate`: sets `data`'s fields, then removes `clear`'s.
    public mutating func apply(_ data: PartialUser, clearing clear: [Field] = []) {
        if let value = data.username { username = value }
        if let value = data.discriminator { discriminator = value }
        if let value = data.displayName { displayName = value }
        if let value = data.pronouns { pronouns = value }
        if let value = data.avatar { avatar = value }
        if let value = data.relations { relations = value }
        if let value = data.badges { badges = value }
        if let value = data.status { status = value }
        if let value = data.flags { flags = value }
        if let value = data.privileged { privileged = value }
        if let value = data.bot { bot = value }
        if let value = data.relationship { relationship = value }
        if let value = data.online { online = value }
        for field in clear {
            switch field {
            case .avatar: avatar = nil
            case .statusText: status?.text = nil
            case .statusPresence: status?.presence = nil
            case .displayName: displayName = nil
            case .pronouns: pronouns = nil
            default: break  // The profile, which Lifeline does not model.
            }
        }
    }
}
