extension Member {
    /// Applies a `ServerMemberUpdate`: sets `data`'s fields, then removes `clear`'s.
    ///
    /// - Parameters:
    ///   - data: The fields that changed.
    ///   - clear: The fields removed; a cleared ``timeout`` means the member may speak again.
    public mutating func apply(_ data: PartialMember, clearing clear: [Field] = []) {
        if let value = data.joinedAt { joinedAt = value }
        if let value = data.nickname { nickname = value }
        if let value = data.pronouns { pronouns = value }
        if let value = data.avatar { avatar = value }
        if let value = data.roles { roles = value }
        if let value = data.timeout { timeout = value }
        if let value = data.canPublish { canPublish = value }
        if let value = data.canReceive { canReceive = value }
        for field in clear {
            switch field {
            case .nickname: nickname = nil
            case .pronouns: pronouns = nil
            case .avatar: avatar = nil
            case .roles: roles = nil
            case .timeout: timeout = nil
            case .canPublish: canPublish = nil
            case .canReceive: canReceive = nil
            case .joinedAt: joinedAt = nil
            default: break  // Fields Lifeline does not model (the voice channel).
            }
        }
    }
}
