import HTTPTypes
import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension HTTPRoutes {
    /// stoatchat's routes for what happens to messages after they are sent, and for what a user has read:
    /// acknowledgements, reactions and bulk deletion (`crates/delta/src/routes/channels/`). Each answers 204.
    func addMessageRoutes(to router: Router<ServerRequestContext>) {
        let state = state
        route(router, .put, "/channels/:id/ack/:message") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            try await Self.stoat { () async throws(APIError) in
                try await state.acknowledge(
                    Self.parameter("message", context), in: Self.parameter("id", context), as: user)
            }
            return Response(status: .noContent)
        }
        // Registered before `/channels/:id/messages/:message`'s DELETE takes `bulk` for a message id, as
        // stoatchat's `rank = 1` orders them.
        route(router, .delete, "/channels/:id/messages/bulk") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            let body = try await Self.readJSON(request)
            guard case .object(let object) = body, case .array(let list) = object["ids"] else {
                throw .framework(status: 422)
            }
            var ids: [String] = []
            for item in list {
                guard let id = item.stringValue else { throw .framework(status: 422) }
                ids.append(id)
            }
            try await Self.stoat { () async throws(APIError) in
                try await state.bulkDelete(ids, in: Self.parameter("id", context), as: user)
            }
            return Response(status: .noContent)
        }
        route(router, .put, "/channels/:id/messages/:message/reactions/:emoji") {
            request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            try await Self.stoat { () async throws(APIError) in
                try await state.react(
                    Self.parameter("message", context), in: Self.parameter("id", context),
                    emoji: Self.parameter("emoji", context), as: user)
            }
            await Self.loseActionAnswerIfFaulted(state, context)
            return Response(status: .noContent)
        }
        route(router, .delete, "/channels/:id/messages/:message/reactions/:emoji") {
            request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            let query = request.uri.queryParameters
            let removeAll = try Self.bool(query["remove_all"]) ?? false
            let userID = query["user_id"].map(String.init)
            try await Self.stoat { () async throws(APIError) in
                try await state.unreact(
                    Self.parameter("message", context), in: Self.parameter("id", context),
                    emoji: Self.parameter("emoji", context), userID: userID, removeAll: removeAll, as: user)
            }
            await Self.loseActionAnswerIfFaulted(state, context)
            return Response(status: .noContent)
        }
        route(router, .delete, "/channels/:id/messages/:message/reactions") { request, context throws(RouteFailure) in
            let user = try await Self.user(request, state)
            try await Self.stoat { () async throws(APIError) in
                try await state.clearReactions(
                    Self.parameter("message", context), in: Self.parameter("id", context), as: user)
            }
            return Response(status: .noContent)
        }
    }

    /// The lost-answer fault for message actions (``ReferenceServer/loseNextActionAnswers(_:)``): the action is
    /// applied and published, then the connection drops before any answer.
    static func loseActionAnswerIfFaulted(_ state: ServerState, _ context: ServerRequestContext) async {
        guard await state.takeLostActionAnswer() else { return }
        try? await context.channel.close().get()
    }

    /// A path parameter as Rocket passes it: percent-decoded (an emoji arrives encoded).
    static func parameter(_ name: String, _ context: ServerRequestContext) -> String {
        let raw = context.parameters.get(name) ?? ""
        return raw.removingPercentEncoding ?? raw
    }
}
