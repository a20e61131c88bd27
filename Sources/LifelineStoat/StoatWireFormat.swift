/// How frames are written on Stoat's events socket: the socket URL's `format`.
///
/// Both of Stoat's events servers speak JSON (text frames, the default) and MessagePack (binary frames);
/// Lifeline decodes both to the same ``BonfireEvent``s and writes its own frames in the format it asked for.
public struct StoatWireFormat: Sendable, Hashable, CustomStringConvertible {
    /// The value of the URL's `format` query item.
    public var queryValue: String

    private init(queryValue: String) {
        self.queryValue = queryValue
    }

    /// JSON text frames (`format=json`): the default.
    public static let json = StoatWireFormat(queryValue: "json")
    /// MessagePack binary frames (`format=msgpack`).
    public static let messagePack = StoatWireFormat(queryValue: "msgpack")

    /// The query value.
    public var description: String { queryValue }
}
