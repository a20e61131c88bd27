/// One synced setting of the account, as `POST /sync/settings/fetch` answers it (`[revision, value]`).
public struct SyncedSetting: Sendable, Hashable, Decodable {
    /// When the setting was last changed, as the client that changed it stamped it (milliseconds).
    public var revision: Int64
    /// The setting's data: JSON text, as the client that uploaded it wrote it.
    public var value: String

    /// Creates a setting.
    public init(revision: Int64, value: String) {
        self.revision = revision
        self.value = value
    }

    /// Decodes `[revision, value]`.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        revision = try container.decode(Int64.self)
        value = try container.decode(String.self)
    }
}
