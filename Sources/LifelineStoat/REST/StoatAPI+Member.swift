extension StoatAPI {
    /// One member of a server (`GET /servers/{id}/members/{member}`), with the server's clock when it
    /// answered: compare the member's ``Member/timeout`` with ``ServerDated/serverDate``.
    ///
    /// - Parameters:
    ///   - userID: The member's user id.
    ///   - server: The server's id.
    ///   - credentials: The session (or a bot, see ``StoatAuthorization``).
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/notFound`` when the caller or the user is not a
    ///   member of the server (or there is no such server).
    public func member(
        _ userID: String, in server: String, _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) -> ServerDated<Member> {
        let response = try await send(
            .GET, path: "/servers/\(Self.percentEncoded(server))/members/\(Self.percentEncoded(userID))",
            auth: credentials.authorization)
        let member = try response.decode(Member.self, expecting: 200)
        let serverDate = response.headers.first(name: "date").flatMap(StoatDates.httpDate)
        return ServerDated(member, serverDate: serverDate, roundTrip: response.roundTrip)
    }
}
