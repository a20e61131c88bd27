import Foundation

extension StoatAPI {
    /// The channels of a server the user may see, as they are stored now (`GET /servers/{id}?include_channels=true`):
    /// their `last_message_id` as stoatchat's debounced task committed it, which `Ready` may not have shown yet.
    ///
    /// stoatchat flattens the channel objects into the server's body after the server's own `channels` (its ids),
    /// so the body carries the key twice; the objects are the later one, which this reads.
    ///
    /// - Parameters:
    ///   - id: The server's id.
    ///   - credentials: The session (or a bot).
    /// - Returns: The channels, in the server's order.
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/notFound`` when the user is not a member,
    ///   ``StoatAPIErrorCode/malformedResponse`` for a body without channel objects.
    public func serverChannels(
        _ id: String, _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) -> [Channel] {
        let response = try await send(
            .GET, path: "/servers/\(Self.percentEncoded(id))?include_channels=true", auth: credentials.authorization)
        try response.expect(200)
        do {
            // `JSONSerialization` keeps a repeated key's last value (the objects); `JSONDecoder` its first (the ids).
            let object = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
            guard let server = object as? [String: Any], let channels = server["channels"] as? [Any] else {
                throw StoatAPIError(
                    code: .malformedResponse, message: "\(response.request) answered no channels", status: 200)
            }
            return try JSONDecoder().decode([Channel].self, from: JSONSerialization.data(withJSONObject: channels))
        } catch let error as StoatAPIError {
            throw error
        } catch {
            throw StoatAPIError(
                code: .malformedResponse, message: "\(response.request) answered a body that is not the expected JSON",
                status: 200, cause: error)
        }
    }
}
