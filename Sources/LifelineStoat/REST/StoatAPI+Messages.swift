import Lifeline
import LifelineCore

// Temporary: the lead's stand-in until the REST engineer's message history API lands.
extension StoatAPI {
    struct HistoryPage: Decodable {
        var messages: [Message]
        var users: [User]
    }

    func latestMessages(in channel: String, limit: Int, _ credentials: SessionCredentials) async throws(StoatAPIError)
        -> HistoryPage
    {
        let path = "/channels/\(Self.percentEncoded(channel))/messages?limit=\(limit)&include_users=true"
        let response = try await send(.GET, path: path, token: credentials.token)
        return try response.decode(HistoryPage.self, expecting: 200)
    }
}
