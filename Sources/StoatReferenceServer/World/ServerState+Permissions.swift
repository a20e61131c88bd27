#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The permissions facet: stoatchat's permission calculation (`crates/core/permissions/src/impl.rs`) over the
/// data this server keeps (server default permissions, a text channel's `default_permissions`, the member's
/// roles in rank order, owners, timeouts, group permissions, friendships; no per-channel role overrides).
extension ServerState {
    /// stoatchat's user permission bits (`UserPermission`).
    struct UserPermission: OptionSet {
        let rawValue: UInt32
        static let access = UserPermission(rawValue: 1 << 0)
        static let viewProfile = UserPermission(rawValue: 1 << 1)
        static let sendMessage = UserPermission(rawValue: 1 << 2)
        static let invite = UserPermission(rawValue: 1 << 3)
        static let all = UserPermission(rawValue: .max)
    }

    /// Whether two users share a server, or a direct message or group.
    func haveMutualConnection(_ first: String, _ second: String) -> Bool {
        let firstServers = Set(serverIDsByUser[first] ?? [])
        if (serverIDsByUser[second] ?? []).contains(where: firstServers.contains) { return true }
        return channels.values.contains { channel in
            (channel.kind == .directMessage || channel.kind == .group)
                && channel.recipients.contains(first) && channel.recipients.contains(second)
        }
    }

    /// What `perspective` may do with `target` (`calculate_user_permissions`).
    func userPermissions(_ perspective: StoatUser, toward target: StoatUser) -> UserPermission {
        if perspective.privileged || perspective.id == target.id { return .all }
        var permissions: UserPermission = []
        switch perspective.relationship(with: target.id) {
        case "Friend": return .all
        case "Blocked", "BlockedOther": return .access
        case "Incoming", "Outgoing": permissions = .access
        default: break
        }
        if haveMutualConnection(perspective.id, target.id) {
            permissions = [.access, .viewProfile]
            if target.botOwner != nil || perspective.botOwner != nil { permissions.insert(.sendMessage) }
        }
        return permissions
    }

    /// What `user` may do in `channel` (`calculate_channel_permissions`), at `now` for timeouts.
    func channelPermissions(_ user: StoatUser, in channel: StoatChannel, at now: Date) -> StoatPermission {
        if user.privileged { return .grantAllSafe }
        switch channel.kind {
        case .savedMessages:
            return channel.user == user.id ? .grantAllSafe : []
        case .directMessage:
            guard channel.recipients.contains(user.id) else { return [] }
            let other = channel.recipients.first { $0 != user.id }.flatMap { users[$0] }
            guard let other else { return .viewOnly }
            return userPermissions(user, toward: other).contains(.sendMessage) ? .defaultDirectMessage : .viewOnly
        case .group:
            if channel.owner == user.id { return .grantAllSafe }
            guard channel.recipients.contains(user.id) else { return [] }
            let allowed = channel.permissions.map { StoatPermission(rawValue: UInt64(bitPattern: $0)) }
            return StoatPermission.viewOnly.union(allowed ?? .defaultDirectMessage)
        default:
            guard let serverID = channel.serverID, let server = servers[serverID] else { return [] }
            if server.owner == user.id { return .grantAllSafe }
            guard let member = member(server: serverID, user: user.id) else { return [] }
            var permissions = StoatPermission(rawValue: UInt64(bitPattern: server.defaultPermissions))
            if let channelDefault = channel.defaultPermissions { permissions = channelDefault.applied(to: permissions) }
            // The member's roles, highest rank number first: the highest role (lowest rank) is applied last.
            let roles = member.roles.compactMap { server.roles[$0] }.sorted { $0.rank > $1.rank }
            for role in roles { permissions = role.permissions.applied(to: permissions) }
            if member.isTimedOut(at: now) { permissions.formIntersection(.viewOnly) }
            return permissions.contains(.viewChannel) ? permissions : []
        }
    }

    /// Throws `MissingPermission` unless `user` has `permission` in `channel`.
    func require(
        _ permission: StoatPermission, of user: StoatUser, in channel: StoatChannel, at location: String
    ) throws(APIError) {
        guard channelPermissions(user, in: channel, at: now()).contains(permission) else {
            throw APIError.missing(permission, at: location)
        }
    }

    /// Whether `user` sees `channel` (stoatchat's `can_view_channel`: every non-server channel in their list).
    func canView(_ user: StoatUser, _ channel: StoatChannel) -> Bool {
        guard channel.kind == .textChannel else { return true }
        return channelPermissions(user, in: channel, at: now()).contains(.viewChannel)
    }
}
