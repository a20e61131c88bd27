extension Server {
    /// Applies a `ServerUpdate`: sets `data`'s fields, then removes `clear`'s.
    public mutating func apply(_ data: PartialServer, clearing clear: [Field] = []) {
        if let value = data.owner { owner = value }
        if let value = data.name { name = value }
        if let value = data.description { description = value }
        if let value = data.channels { channels = value }
        if let value = data.categories { categories = value }
        if let value = data.systemMessages { systemMessages = value }
        if let value = data.roles { roles = value }
        if let value = data.defaultPermissions { defaultPermissions = value }
        if let value = data.icon { icon = value }
        if let value = data.banner { banner = value }
        if let value = data.flags { flags = value }
        if let value = data.nsfw { nsfw = value }
        if let value = data.analytics { analytics = value }
        if let value = data.discoverable { discoverable = value }
        for field in clear {
            switch field {
            case .description: description = nil
            case .categories: categories = nil
            case .systemMessages: systemMessages = nil
            case .icon: icon = nil
            case .banner: banner = nil
            default: break  // A field this version does not know.
            }
        }
    }
}
