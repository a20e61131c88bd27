extension Message {
    /// Applies a `MessageUpdate`: sets `data`'s fields, then removes `clear`'s.
    public mutating func apply(_ data: PartialMessage, clearing clear: [Field] = []) {
        if let value = data.content { content = value }
        if let value = data.edited { edited = value }
        if let value = data.embeds { embeds = value }
        if let value = data.attachments { attachments = value }
        if let value = data.mentions { mentions = value }
        if let value = data.roleMentions { roleMentions = value }
        if let value = data.replies { replies = value }
        if let value = data.reactions { reactions = value }
        if let value = data.interactions { interactions = value }
        if let value = data.masquerade { masquerade = value }
        if let value = data.pinned { pinned = value }
        if let value = data.flags { flags = value }
        for field in clear where field == .pinned { pinned = nil }
    }
}
