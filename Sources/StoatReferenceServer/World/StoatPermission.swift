/// Stoat's channel and server permission bits (`crates/core/permissions`, `ChannelPermission`).
public struct StoatPermission: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The bits.
    public let rawValue: UInt64

    /// Creates a set from its bits.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Manage the channel or the server's channels.
    public static let manageChannel = StoatPermission(rawValue: 1 << 0)
    /// Manage the server.
    public static let manageServer = StoatPermission(rawValue: 1 << 1)
    /// Manage permissions.
    public static let managePermissions = StoatPermission(rawValue: 1 << 2)
    /// Manage roles.
    public static let manageRole = StoatPermission(rawValue: 1 << 3)
    /// Time out members below one's ranking.
    public static let timeoutMembers = StoatPermission(rawValue: 1 << 8)
    /// Change one's own nickname.
    public static let changeNickname = StoatPermission(rawValue: 1 << 10)
    /// Change one's own avatar.
    public static let changeAvatar = StoatPermission(rawValue: 1 << 12)
    /// See a channel.
    public static let viewChannel = StoatPermission(rawValue: 1 << 20)
    /// Read a channel's history.
    public static let readMessageHistory = StoatPermission(rawValue: 1 << 21)
    /// Send messages.
    public static let sendMessage = StoatPermission(rawValue: 1 << 22)
    /// Delete others' messages.
    public static let manageMessages = StoatPermission(rawValue: 1 << 23)
    /// Create invites.
    public static let inviteOthers = StoatPermission(rawValue: 1 << 25)
    /// Send embeds.
    public static let sendEmbeds = StoatPermission(rawValue: 1 << 26)
    /// Upload files.
    public static let uploadFiles = StoatPermission(rawValue: 1 << 27)
    /// Masquerade.
    public static let masquerade = StoatPermission(rawValue: 1 << 28)
    /// React.
    public static let react = StoatPermission(rawValue: 1 << 29)
    /// Connect to voice.
    public static let connect = StoatPermission(rawValue: 1 << 30)
    /// Speak.
    public static let speak = StoatPermission(rawValue: 1 << 31)
    /// Share video.
    public static let video = StoatPermission(rawValue: 1 << 32)
    /// Listen.
    public static let listen = StoatPermission(rawValue: 1 << 36)
    /// Mention everyone.
    public static let mentionEveryone = StoatPermission(rawValue: 1 << 37)
    /// Mention roles.
    public static let mentionRoles = StoatPermission(rawValue: 1 << 38)
    /// Send regardless of a channel's slowmode.
    public static let bypassSlowmode = StoatPermission(rawValue: 1 << 39)

    /// Every permission a server owner has (`GrantAllSafe`).
    public static let grantAllSafe = StoatPermission(rawValue: 0x000F_FFFF_FFFF_FFFF)
    /// What a timed-out member keeps (`ALLOW_IN_TIMEOUT`), also the view-only set.
    public static let viewOnly: StoatPermission = [.viewChannel, .readMessageHistory]
    /// `DEFAULT_PERMISSION`.
    public static let defaultSet: StoatPermission = viewOnly.union([
        .sendMessage, .inviteOthers, .sendEmbeds, .uploadFiles, .connect, .speak, .listen, .video,
    ])
    /// What a new server gives its members (`DEFAULT_PERMISSION_SERVER`).
    public static let defaultServer: StoatPermission = defaultSet.union([.react, .changeNickname, .changeAvatar])
    /// What a direct message or a group gives by default (`DEFAULT_PERMISSION_DIRECT_MESSAGE`).
    public static let defaultDirectMessage: StoatPermission = defaultSet.union([.manageChannel, .react, .masquerade])

    private static let names: [(StoatPermission, String)] = [
        (.manageChannel, "ManageChannel"), (.manageServer, "ManageServer"), (.managePermissions, "ManagePermissions"),
        (.manageRole, "ManageRole"), (.timeoutMembers, "TimeoutMembers"), (.changeNickname, "ChangeNickname"),
        (.changeAvatar, "ChangeAvatar"), (.viewChannel, "ViewChannel"), (.readMessageHistory, "ReadMessageHistory"),
        (.sendMessage, "SendMessage"), (.manageMessages, "ManageMessages"), (.inviteOthers, "InviteOthers"),
        (.sendEmbeds, "SendEmbeds"), (.uploadFiles, "UploadFiles"), (.masquerade, "Masquerade"), (.react, "React"),
        (.connect, "Connect"), (.speak, "Speak"), (.video, "Video"), (.listen, "Listen"),
        (.mentionEveryone, "MentionEveryone"), (.mentionRoles, "MentionRoles"), (.bypassSlowmode, "BypassSlowmode"),
    ]

    /// The name stoatchat writes in `MissingPermission` for a single bit (`"ViewChannel"`, …).
    public var name: String {
        Self.names.first { $0.0 == self }?.1 ?? "Permission(\(rawValue))"
    }

    /// The names of the bits set.
    public var description: String {
        Self.names.filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}
