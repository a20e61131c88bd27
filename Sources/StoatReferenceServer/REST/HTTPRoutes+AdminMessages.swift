import Hummingbird

extension HTTPRoutes {
    /// The admin API's message and read-state actions (`POST <adminURL>/…`), each by stoatchat's rules and with
    /// its events: reactions, embeds appended, bulk deletion, acknowledgements, default permissions, a server
    /// deleted.
    func addAdminMessages(to router: Router<ServerRequestContext>) {
        let state = state
        admin(router, .post, "messages/:id/react") { body, context in
            try await Self.world {
                try await state.react(
                    as: try body.string("user_id"), messageID: context.parameters.get("id") ?? "",
                    emoji: try body.string("emoji"), add: true)
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "messages/:id/unreact") { body, context in
            try await Self.world {
                try await state.react(
                    as: try body.string("user_id"), messageID: context.parameters.get("id") ?? "",
                    emoji: try body.string("emoji"), add: false)
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "messages/:id/append") { body, context in
            guard case .array(let embeds) = body["embeds"] else { throw AdminFailure.invalid("embeds") }
            let message = try await Self.world {
                try await state.appendEmbeds(embeds, to: context.parameters.get("id") ?? "")
            }
            return Self.json(message.wire)
        }
        admin(router, .post, "messages/bulk-delete") { body, _ in
            guard case .array(let list) = body["ids"] else { throw AdminFailure.invalid("ids") }
            let ids = list.compactMap(\.stringValue)
            guard ids.count == list.count else { throw AdminFailure.invalid("ids") }
            try await Self.world {
                try await state.bulkDelete(
                    as: try body.string("user_id"), ids: ids, channelID: try body.string("channel_id"))
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "acks") { body, _ in
            try await Self.world {
                try await state.acknowledge(
                    as: try body.string("user_id"), channelID: try body.string("channel_id"),
                    messageID: try body.string("message_id"))
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "servers/:id/default-permissions") { body, context in
            guard
                let permissions = try body.optionalNumber("permissions", in: 0...9_007_199_254_740_992).flatMap({
                    Int64(exactly: $0)
                })
            else {
                throw AdminFailure.invalid("permissions")
            }
            try await Self.world {
                try await state.setDefaultPermissions(
                    serverID: context.parameters.get("id") ?? "", permissions: permissions)
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "servers/:id/roles") { body, context in
            let role = StoatRole(
                name: try body.string("name"), permissions: try Self.override(body),
                rank: Int64(try body.optionalInt("rank", in: 0...1_000_000) ?? 0))
            let id = try await Self.world {
                try await state.addRole(serverID: context.parameters.get("id") ?? "", role: role)
            }
            return Self.json(.object(["id": .string(id)]))
        }
        admin(router, .post, "member-roles") { body, _ in
            guard case .array(let list) = body["roles"] else { throw AdminFailure.invalid("roles") }
            let roles = list.compactMap(\.stringValue)
            guard roles.count == list.count else { throw AdminFailure.invalid("roles") }
            try await Self.world {
                try await state.setMemberRoles(
                    serverID: try body.string("server_id"), userID: try body.string("user_id"), roles: roles)
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "channels/:id/default-permissions") { body, context in
            let override: StoatOverride? = body["allow"] == nil && body["deny"] == nil ? nil : try Self.override(body)
            try await Self.world {
                try await state.setChannelDefaultPermissions(channelID: context.parameters.get("id") ?? "", override)
            }
            return Response(status: .noContent)
        }
        admin(router, .post, "servers/:id/delete") { _, context in
            try await Self.world { try await state.deleteServer(context.parameters.get("id") ?? "") }
            return Response(status: .noContent)
        }
    }

    /// An override from a body's `allow` and `deny` (``StoatPermission`` bits, each 0 when absent).
    static func override(_ body: [String: JSONValue]) throws -> StoatOverride {
        let range: ClosedRange<Double> = 0...9_007_199_254_740_992
        let allow = try body.optionalNumber("allow", in: range).flatMap { UInt64(exactly: $0) } ?? 0
        let deny = try body.optionalNumber("deny", in: range).flatMap { UInt64(exactly: $0) } ?? 0
        return StoatOverride(allow: StoatPermission(rawValue: allow), deny: StoatPermission(rawValue: deny))
    }
}
