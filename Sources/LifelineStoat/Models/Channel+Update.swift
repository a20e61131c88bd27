extension Channel {
    /// Applies a `ChannelUpdate`: sets `data`'s fields, then removes `clear`'s.
    public mutating func apply(_ data: PartialChannel, clearing clear: [Field] = []) {
        if let value = data.name { name = value }
        if let value = data.owner { owner = value }
        if let value = data.description { description = value }
        if let value = data.icon { icon = value }
        if let value = data.nsfw { nsfw = value }
        if let value = data.active { active = value }
        if let value = data.permissions { permissions = value }
        if let value = data.rolePermissions { rolePermissions = value }
        if let value = data.defaultPermissions { defaultPermissions = value }
        if let value = data.lastMessageID { lastMessageID = value }
        if let value = data.voice { voice = value }
        if let value = data.slowmode { slowmode = value }
        for field in clear {
            switch field {
            case .description: description = nil
            case .icon: icon = nil
            case .defaultPermissions: defaultPermissions = nil
            case .voice: voice = nil
            case .slowmode: slowmode = nil
            default: break  // A field this version does not know.
            }
        }
    }
}
