/// The session tokens a reference server received from clients, as ``ReferenceServer/sessionTokensReceived()``
/// reports them.
public struct ReceivedSessionTokens: Sendable, Equatable {
    /// The distinct tokens received, up to 10 000 (a server that runs for days stays bounded).
    public let tokens: Set<String>
    /// How many more distinct tokens arrived once ``tokens`` was full. While it is 0, ``tokens`` is every token
    /// received.
    public let unrecorded: Int

    /// Whether `token` was received, as far as the record tells: `true` when it is in ``tokens``; `nil` when it
    /// is not but some tokens went unrecorded.
    public func contains(_ token: String) -> Bool? {
        if tokens.contains(token) { return true }
        return unrecorded == 0 ? false : nil
    }
}
