#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The roles facet: a server's roles (stoatchat's `POST /servers/{id}/roles`, `Role::create`), the roles a
/// member holds (`PATCH /servers/{id}/members/{member}` with `roles`) and a text channel's override of the
/// server's default permissions (`PUT /channels/{id}/permissions/default`), each announced as stoatchat announces
/// it. The admin API drives them; the permission calculation (``channelPermissions(_:in:at:)``) reads them.
extension ServerState {
    /// Creates a role in a server: `ServerRoleUpdate` with the whole role to the server. Returns its id.
    func addRole(serverID: String, role: StoatRole) throws(ReferenceServerError) -> String {
        guard var server = servers[serverID] else {
            throw ReferenceServerError(code: .notFound, message: "No server \(serverID)")
        }
        let id = Identifiers.ulid(at: now())
        server.roles[id] = role
        upsert(server: server)
        publish(.serverRoleUpdate(server: serverID, role: id, data: role.wire, clear: []), to: [serverID])
        return id
    }

    /// Sets the roles a member holds: `ServerMemberUpdate {roles}` to the server (a member without roles has the
    /// field cleared, `clear: ["Roles"]`).
    func setMemberRoles(serverID: String, userID: String, roles: [String]) throws(ReferenceServerError) {
        guard var member = member(server: serverID, user: userID) else {
            throw ReferenceServerError(code: .notFound, message: "\(userID) is not a member of \(serverID)")
        }
        let known = servers[serverID]?.roles ?? [:]
        guard let unknown = roles.first(where: { known[$0] == nil }) else {
            member.roles = roles
            upsert(member: member)
            let data: Wire = roles.isEmpty ? .object([]) : .object(["roles": .strings(roles)])
            publish(
                .serverMemberUpdate(server: serverID, user: userID, data: data, clear: roles.isEmpty ? ["Roles"] : []),
                to: [serverID])
            return
        }
        throw ReferenceServerError(code: .notFound, message: "No role \(unknown) in \(serverID)")
    }

    /// Sets (or, with nil, removes) a text channel's override of its server's default permissions:
    /// `ChannelUpdate {default_permissions}` to the channel, or `clear: ["DefaultPermissions"]`.
    func setChannelDefaultPermissions(channelID: String, _ override: StoatOverride?) throws(ReferenceServerError) {
        guard var channel = channels[channelID], channel.kind == .textChannel else {
            throw ReferenceServerError(code: .notFound, message: "No text channel \(channelID)")
        }
        channel.defaultPermissions = override
        upsert(channel: channel)
        let data: Wire = override.map { .object(["default_permissions": $0.wire]) } ?? .object([])
        publish(
            .channelUpdate(id: channelID, data: data, clear: override == nil ? ["DefaultPermissions"] : []),
            to: [channelID])
    }
}
