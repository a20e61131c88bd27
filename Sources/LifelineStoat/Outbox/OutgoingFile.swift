import Crypto
import NIOCore
import NIOFileSystem

/// A file on disk to attach to a message sent through the outbox (``StoatClient/send(_:files:to:)``).
///
/// The outbox keeps its path and the SHA-256 of its bytes in the account's store when the message is queued,
/// uploads it to the file server before it posts the message, and posts the message once with the uploaded ids.
/// The file is read, not copied: it must stay where it is, unchanged, until the message is sent — a file
/// changed since it was queued fails the entry (``OutboxEntry/Failure/Code/fileChanged``), never sending other
/// bytes in its place.
public struct OutgoingFile: Sendable, Hashable {
    /// The file's path.
    public var path: String
    /// The name it is uploaded under; the path's last component when `nil`.
    public var filename: String?

    /// A file to attach.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - filename: The name it is uploaded under; the path's last component by default.
    public init(path: String, filename: String? = nil) {
        self.path = path
        self.filename = filename
    }

    /// The name it is uploaded under.
    var uploadName: String {
        if let filename, !filename.isEmpty { return filename }
        return path.split(separator: "/").last.map(String.init) ?? "file"
    }
}

/// A file's size and SHA-256, read in chunks (never whole into memory).
struct FileDigest: Sendable, Hashable {
    var size: Int64
    /// Lowercase hex.
    var sha256: String

    /// How large the chunks are.
    static let chunkLength: Int64 = 256 * 1024

    /// Reads the file at `path`; throws what the file system throws for a file that cannot be read.
    static func of(_ path: String) async throws -> FileDigest {
        try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
            var hasher = SHA256()
            var size: Int64 = 0
            let length = try await handle.info().size
            for try await chunk in handle.readChunks(in: 0..<length, chunkLength: .bytes(chunkLength)) {
                chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                size += Int64(chunk.readableBytes)
            }
            let hex = hasher.finalize().map { byte in
                let digits = Array("0123456789abcdef")
                return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
            }
            return FileDigest(size: size, sha256: hex.joined())
        }
    }
}
