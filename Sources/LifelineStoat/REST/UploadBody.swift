import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `multipart/form-data` framing of one file upload: the `file` part's header before the bytes and the
/// closing boundary after them, and the request's total length.
struct MultipartUpload: Sendable {
    let boundary: String
    let preamble: ByteBuffer
    let epilogue: ByteBuffer
    /// The file's size in bytes.
    let size: Int64

    /// The request's length: framing and file.
    var total: Int64 { Int64(preamble.readableBytes) + size + Int64(epilogue.readableBytes) }

    /// The `Content-Type` header that names the boundary.
    var contentTypeHeader: String { "multipart/form-data; boundary=\(boundary)" }

    init(filename: String, contentType: String, size: Int64, boundary: String = "lifeline-" + UUID().uuidString) {
        self.boundary = boundary
        self.size = size
        let header =
            "--\(boundary)\r\n"
            + "Content-Disposition: form-data; name=\"file\"; filename=\"\(Self.quoted(filename))\"\r\n"
            + "Content-Type: \(Self.headerSafe(contentType))\r\n\r\n"
        preamble = ByteBuffer(string: header)
        epilogue = ByteBuffer(string: "\r\n--\(boundary)--\r\n")
    }

    /// A file name inside a quoted `filename="…"`, as the HTML standard escapes it: `"` as `%22`, CR as `%0D`,
    /// LF as `%0A`.
    static func quoted(_ name: String) -> String {
        var escaped = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A header value without line breaks or other control characters.
    static func headerSafe(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
    }
}

/// An upload's body as the HTTP client pulls it: the form's header, the file's chunks, the closing boundary.
///
/// Each time the client asks for the next chunk, the ones handed out before have been taken by the network, so
/// the progress reported then counts them; the last report, when the body ends, is the whole request.
struct UploadBody<Chunks: AsyncSequence & Sendable>: AsyncSequence, Sendable where Chunks.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let form: MultipartUpload
    let chunks: Chunks
    let progress: @Sendable (StoatFileServer.Progress) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        enum Phase { case preamble, file, epilogue, done }

        var phase = Phase.preamble
        var chunks: Chunks.AsyncIterator
        let form: MultipartUpload
        let progress: @Sendable (StoatFileServer.Progress) -> Void
        var handedOut: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            progress(StoatFileServer.Progress(sent: handedOut, total: form.total))
            let chunk: ByteBuffer?
            switch phase {
            case .preamble:
                phase = .file
                chunk = form.preamble
            case .file:
                if let next = try await chunks.next() {
                    chunk = next
                } else {
                    phase = .done
                    chunk = form.epilogue
                }
            case .epilogue:
                phase = .done
                chunk = form.epilogue
            case .done:
                chunk = nil
            }
            handedOut += Int64(chunk?.readableBytes ?? 0)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: chunks.makeAsyncIterator(), form: form, progress: progress)
    }
}

/// A buffer held in memory, as chunks of at most `length` bytes.
struct BufferChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let buffer: ByteBuffer
    let length: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ByteBuffer
        let length: Int

        mutating func next() async -> ByteBuffer? {
            guard rest.readableBytes > 0 else { return nil }
            return rest.readSlice(length: Swift.min(length, rest.readableBytes))
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(rest: buffer, length: Swift.max(1, length))
    }
}
