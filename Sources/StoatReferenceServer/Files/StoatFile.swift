#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A file uploaded to the file server (stoatchat's `File`, `crates/core/database/src/models/files/model.rs`);
/// the server keeps its bytes beside it (``ReferenceServer/fileContents(id:)``).
///
/// Written as stoatchat writes a message's attachment: `_id`, `tag`, `filename`, `metadata`, `content_type`,
/// `size`, then `deleted` when it was deleted. Its ``size`` is what stoatchat's file server stores — the bytes
/// plus the 16-byte authentication tag of its encryption at rest — so it is 16 more than the bytes a download
/// gives back, as on stoat.chat.
public struct StoatFile: Sendable, Equatable, Codable {
    /// What the file server learned of a file (`metadata`, tagged by `type`).
    public enum Metadata: Sendable, Equatable, Codable {
        /// Any file (`{"type":"File"}`).
        case file
        /// Text to show as such (`{"type":"Text"}`).
        case text
        /// An image of these dimensions (`{"type":"Image","width","height"}`).
        case image(width: Int, height: Int)

        var wire: Wire {
            switch self {
            case .file: .object(["type": .string("File")])
            case .text: .object(["type": .string("Text")])
            case .image(let width, let height):
                .object(["type": .string("Image"), "width": .integer(width), "height": .integer(height)])
            }
        }
    }

    /// The file's id: 42 URL-safe characters (`nanoid!(42)`), a ULID for an emoji.
    public var id: String
    /// The tag it was uploaded to (`attachments`, `avatars`, `backgrounds`, `icons`, `banners`, `emojis`).
    public var tag: String
    /// The name it was uploaded with (`unnamed-file` when the form gave none).
    public var filename: String
    /// What kind of file it is.
    public var metadata: Metadata
    /// Its MIME type.
    public var contentType: String
    /// Its stored size: the bytes plus 16 (see the type's discussion).
    public var size: Int
    /// The user who uploaded it.
    public var uploader: String
    /// The message it is attached to, once a message claimed it; a file is claimed once.
    public var messageID: String?
    /// Whether the message it was attached to was deleted (it is no longer served).
    public var deleted: Bool

    /// The file as a message's `attachments` carry it.
    var wire: Wire {
        .object([
            "_id": .string(id),
            "tag": .string(tag),
            "filename": .string(filename),
            "metadata": metadata.wire,
            "content_type": .string(contentType),
            "size": .integer(size),
            "deleted": deleted ? .bool(true) : nil,
        ])
    }
}

/// A stored file with its bytes, as the data file keeps it.
struct FileRecord: Sendable, Codable {
    var file: StoatFile
    var bytes: Data
}

extension StoatFile.Metadata {
    /// What stoatchat's `generate_metadata` says of `bytes`: an image's dimensions read from a PNG, GIF or
    /// JPEG header, `Text` for a `text/…` type, `File` otherwise.
    static func sniff(_ bytes: some RandomAccessCollection<UInt8>, contentType: String) -> StoatFile.Metadata {
        let data = Array(bytes.prefix(64 * 1024))
        func big16(_ at: Int) -> Int { Int(data[at]) << 8 | Int(data[at + 1]) }
        func big32(_ at: Int) -> Int { big16(at) << 16 | big16(at + 2) }
        if data.count >= 24, data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return .image(width: big32(16), height: big32(20))
        }
        if data.count >= 10, data.starts(with: Array("GIF8".utf8)) {
            return .image(width: Int(data[6]) | Int(data[7]) << 8, height: Int(data[8]) | Int(data[9]) << 8)
        }
        if data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 {
            // Walk the JPEG segments to the first start-of-frame marker.
            var index = 2
            while index + 9 < data.count, data[index] == 0xFF {
                let marker = data[index + 1]
                let length = big16(index + 2)
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                    return .image(width: big16(index + 7), height: big16(index + 5))
                }
                index += 2 + length
            }
        }
        return contentType.lowercased().hasPrefix("text/") ? .text : .file
    }

    /// The MIME type of `bytes` as its magic says (PNG, GIF, JPEG), else `declared`, else
    /// `application/octet-stream`.
    static func contentType(of bytes: some RandomAccessCollection<UInt8>, declared: String?) -> String {
        let head = Array(bytes.prefix(8))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if head.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if let declared, !declared.isEmpty { return declared }
        return "application/octet-stream"
    }
}
