/// A file on Stoat's file server (an avatar, an icon, an attachment).
///
/// Fields stoatchat always sends are still optional here where a client can do without them, so an older
/// or trimmed server's files decode.
public struct File: Sendable, Hashable, Codable, Identifiable {
    /// What the file server learned of a file (`metadata`).
    public struct Metadata: Sendable, Hashable, Codable {
        /// `File`, `Text`, `Image`, `Video` or `Audio`; `nil` when the server left it out.
        public var type: String?
        /// The width in pixels, for images and videos.
        public var width: Int?
        /// The height in pixels, for images and videos.
        public var height: Int?

        /// Creates metadata.
        public init(type: String?, width: Int? = nil, height: Int? = nil) {
            self.type = type
            self.width = width
            self.height = height
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case type, width, height
        }
    }

    /// The file's id (`_id`).
    public var id: String
    /// The bucket it lives in (`avatars`, `icons`, `attachments`, …).
    public var tag: String
    /// The original file name.
    public var filename: String?
    /// What kind of file it is, with its dimensions.
    public var metadata: Metadata?
    /// The MIME type.
    public var contentType: String?
    /// The size in bytes.
    public var size: Int?
    /// Whether the file was deleted.
    public var deleted: Bool?
    /// Whether the file was reported.
    public var reported: Bool?
    /// The message it is attached to, if any.
    public var messageID: String?
    /// The user it belongs to, if any.
    public var userID: String?
    /// The server it belongs to, if any.
    public var serverID: String?
    /// The object it is associated with, if any.
    public var objectID: String?

    /// Creates a file reference.
    public init(
        id: String, tag: String, filename: String? = nil, metadata: Metadata? = nil, contentType: String? = nil,
        size: Int? = nil, deleted: Bool? = nil, reported: Bool? = nil, messageID: String? = nil,
        userID: String? = nil, serverID: String? = nil, objectID: String? = nil
    ) {
        self.id = id
        self.tag = tag
        self.filename = filename
        self.metadata = metadata
        self.contentType = contentType
        self.size = size
        self.deleted = deleted
        self.reported = reported
        self.messageID = messageID
        self.userID = userID
        self.serverID = serverID
        self.objectID = objectID
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id = "_id"
        case tag, filename, metadata
        case contentType = "content_type"
        case size, deleted, reported
        case messageID = "message_id"
        case userID = "user_id"
        case serverID = "server_id"
        case objectID = "object_id"
    }
}
