import AsyncHTTPClient
import LifelineCore
import NIOCore
import NIOFileSystem

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A client for Stoat's file server (Autumn): uploads with progress, and downloads of a message's files.
///
/// Made from the API and its root document (``StoatAPI/fileServer(maximumDownloadSize:)``): the file server is
/// the one `GET /` names under `features.autumn`, and no other. The session's token goes to it — and only to it and to the API:
/// a redirect to another origin is refused before anything is sent (``StoatAPIErrorCode/redirectRefused``),
/// and a file server reached over plaintext from an HTTPS API is refused outright
/// (``StoatAPIErrorCode/insecureFileServerURL``). Downloads carry no token at all: stoatchat's file server
/// serves a message's files to anyone with the URL.
///
/// ```swift
/// let files = try await client.api.fileServer()
/// let id = try await files.upload(contentsOf: "/tmp/cat.png", as: credentials) { progress in
///     print(progress.sent, "of", progress.total)
/// }
/// try await client.send(OutgoingMessage(content: "a cat", attachments: [id]), to: channel)
/// ```
///
/// An upload is streamed from the file in chunks — never copied whole into memory — as one `multipart/form-data`
/// `POST /{tag}` whose `file` part is the file, and answered with the new file's id. A file over the limit the
/// root document states for the account (`features.limits`: a new account's for its first
/// ``RootConfiguration/Limits/newUserHours`` hours) is refused before a byte is sent, as the server would refuse
/// it after reading all of it: ``StoatAPIErrorCode/fileTooLarge`` with ``StoatAPIErrorDetails/limit``.
public struct StoatFileServer: Sendable {
    /// A tag a file is uploaded to: what the file is for.
    public struct Tag: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The wire name.
        public var rawValue: String
        /// Creates a tag from its wire name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A message's attachment: any file (20 MB on stoat.chat).
        public static let attachments = Tag(rawValue: "attachments")
        /// A user's avatar: an image.
        public static let avatars = Tag(rawValue: "avatars")
        /// A profile's background: an image.
        public static let backgrounds = Tag(rawValue: "backgrounds")
        /// A server's or channel's icon: an image.
        public static let icons = Tag(rawValue: "icons")
        /// A server's banner: an image.
        public static let banners = Tag(rawValue: "banners")
        /// A custom emoji: an image.
        public static let emojis = Tag(rawValue: "emojis")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// How far an upload is: the bytes handed to the network of the whole request's.
    public struct Progress: Sendable, Hashable {
        /// Bytes sent so far (the form's few hundred bytes of framing included).
        public var sent: Int64
        /// Bytes the request carries in all.
        public var total: Int64

        /// Creates a progress.
        public init(sent: Int64, total: Int64) {
            self.sent = sent
            self.total = total
        }
    }

    /// The file server's base URL, as `GET /` named it.
    public let url: URL
    /// The accounts' limits the root document stated, if it did.
    public let limits: RootConfiguration.Limits?
    /// The largest file ``download(_:)`` reads into memory; a larger one is
    /// ``StoatAPIErrorCode/malformedResponse``.
    public let maximumDownloadSize: Int
    let api: StoatAPI
    let origin: StoatAPI.Origin

    /// How large the chunks an upload is read and sent in are.
    static let chunkLength = 256 * 1024

    /// A client for the file server `configuration` names.
    ///
    /// - Parameters:
    ///   - api: The API whose root document it is; its HTTP client, clock, TLS and rate limits are used.
    ///   - configuration: The root document (``StoatAPI/configuration()``).
    ///   - maximumDownloadSize: The largest file ``download(_:)`` reads into memory; 64 MiB by default.
    /// - Throws: ``StoatAPIErrorCode/fileServerUnavailable`` when the document names no file server,
    ///   ``StoatAPIErrorCode/insecureFileServerURL`` when its URL is not an `http` or `https` URL with a host,
    ///   or is plaintext for an API reached over HTTPS.
    public init(
        api: StoatAPI, configuration: RootConfiguration, maximumDownloadSize: Int = 64 << 20
    ) throws(StoatAPIError) {
        let service = configuration.features.fileServer
        guard service.enabled, !service.url.isEmpty else {
            throw StoatAPIError(code: .fileServerUnavailable, message: "The server names no file server")
        }
        var text = service.url
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let origin = StoatAPI.Origin(url),
            ["http", "https"].contains(origin.scheme),
            url.query == nil, url.fragment == nil
        else {
            throw StoatAPIError(
                code: .insecureFileServerURL, message: "The file server's URL is not an http or https URL with a host")
        }
        if api.baseURL.scheme?.lowercased() == "https", origin.scheme != "https" {
            throw StoatAPIError(
                code: .insecureFileServerURL,
                message: "The file server's URL is plaintext for an API reached over HTTPS: no token is sent to it")
        }
        self.api = api
        self.url = url
        self.origin = origin
        self.limits = configuration.features.limits
        self.maximumDownloadSize = maximumDownloadSize
    }

    /// The largest file `uploader` may upload to `tag` now, as the root document states it; `nil` when it
    /// states none. Without an uploader (a bot's token), the larger of a new and an established account's.
    ///
    /// - Parameters:
    ///   - tag: The tag.
    ///   - uploader: The uploading user's id, if known.
    ///   - now: The time to judge the account's age by.
    public func limit(for tag: Tag, uploader: String?, at now: Date = Date()) -> Int? {
        guard let limits else { return nil }
        guard let uploader else {
            let sizes = [limits.newUser.uploadSizes[tag.rawValue], limits.standard.uploadSizes[tag.rawValue]]
            return sizes.compactMap { $0 }.max()
        }
        return limits.account(uploader, at: now).uploadSizes[tag.rawValue]
    }

    // MARK: - Uploading

    /// Uploads a file from disk (`POST /{tag}`), streamed in chunks, and returns its id.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - tag: What the file is for; a message's attachment by default.
    ///   - filename: The name to give it; the path's last component by default.
    ///   - contentType: Its MIME type; the file server reads it from the bytes where it can, so
    ///     `application/octet-stream` (the default) is fine.
    ///   - credentials: The session (or a bot) the file belongs to.
    ///   - progress: Called as the request is sent, with the bytes sent of the total, ending with both equal
    ///     once all is sent. A retry (after a `429`, or a same-origin redirect) starts again from 0.
    /// - Returns: The file's id, to put in ``OutgoingMessage/attachments``.
    /// - Throws: ``StoatAPIError``: ``StoatAPIErrorCode/fileTooLarge`` (with ``StoatAPIErrorDetails/limit``) before
    ///   anything is sent when the root document's limit is exceeded, or when the server says so;
    ///   ``StoatAPIErrorCode/invalidRequest`` for a file that cannot be read; ``StoatAPIErrorCode/fileTooSmall``
    ///   for an empty one; ``StoatAPIErrorCode/fileTypeNotAllowed`` for a file that is not an image where the
    ///   tag needs one; ``StoatAPIErrorCode/invalidSession``; the network's failures.
    public func upload(
        contentsOf path: String, tag: Tag = .attachments, filename: String? = nil,
        contentType: String = "application/octet-stream", as credentials: some StoatAuthorizing,
        progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async throws(StoatAPIError) -> String {
        let name = filename ?? (path.split(separator: "/").last.map(String.init) ?? "file")
        let request = "POST /\(tag.rawValue)"
        let outcome: Result<String, StoatAPIError>
        do {
            outcome = try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                let size = try await handle.info().size
                let form = MultipartUpload(filename: name, contentType: contentType, size: size)
                // The handle is read only while the request is sent, inside this closure.
                let make: @Sendable () -> HTTPClientRequest.Body = {
                    let chunks = handle.readChunks(in: 0..<size, chunkLength: .bytes(Int64(Self.chunkLength)))
                    return .stream(
                        UploadBody(form: form, chunks: chunks, progress: progress), length: .known(form.total))
                }
                do throws(StoatAPIError) {
                    return .success(try await send(form, tag: tag, credentials: credentials, body: make))
                } catch {
                    return .failure(error)
                }
            }
        } catch let error as FileSystemError {
            throw StoatAPIError(
                code: .invalidRequest, message: "\(request): the file cannot be read (\(error.code))", cause: error)
        } catch {
            throw StoatAPIError(code: .invalidRequest, message: "\(request): the file cannot be read", cause: error)
        }
        return try outcome.get()
    }

    /// Uploads bytes held in memory (`POST /{tag}`), and returns the file's id.
    ///
    /// - Parameters:
    ///   - bytes: The file's bytes.
    ///   - filename: The file's name.
    ///   - tag: What the file is for; a message's attachment by default.
    ///   - contentType: Its MIME type; `application/octet-stream` by default.
    ///   - credentials: The session (or a bot) the file belongs to.
    ///   - progress: Called as the request is sent (see ``upload(contentsOf:tag:filename:contentType:as:progress:)``).
    /// - Returns: The file's id.
    /// - Throws: ``StoatAPIError`` as ``upload(contentsOf:tag:filename:contentType:as:progress:)`` describes.
    public func upload(
        _ bytes: Data, filename: String, tag: Tag = .attachments, contentType: String = "application/octet-stream",
        as credentials: some StoatAuthorizing, progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async throws(StoatAPIError) -> String {
        let form = MultipartUpload(filename: filename, contentType: contentType, size: Int64(bytes.count))
        let buffer = ByteBuffer(bytes: bytes)
        return try await send(form, tag: tag, credentials: credentials) {
            .stream(
                UploadBody(
                    form: form, chunks: BufferChunks(buffer: buffer, length: Self.chunkLength), progress: progress),
                length: .known(form.total))
        }
    }

    /// Checks the limit, then posts the form.
    private func send(
        _ form: MultipartUpload, tag: Tag, credentials: some StoatAuthorizing,
        body: @escaping @Sendable () -> HTTPClientRequest.Body
    ) async throws(StoatAPIError) -> String {
        let request = "POST /\(tag.rawValue)"
        // A session's user; a bot's token names none (the larger of the limits applies).
        let uploader = (credentials as? SessionCredentials)?.userID
        if let limit = limit(for: tag, uploader: uploader), form.size > Int64(limit) {
            throw StoatAPIError(
                code: .fileTooLarge,
                message: "\(request): the file is \(form.size) bytes, over the server's limit of \(limit)",
                limit: limit)
        }
        let payload = StoatAPI.Payload.stream(contentType: form.contentTypeHeader, length: form.total, make: body)
        let response = try await api.perform(
            .POST, url: StoatAPI.join(url, "/" + StoatAPI.percentEncoded(tag.rawValue)),
            path: "/\(tag.rawValue)", auth: credentials.authorization, headers: [], payload: payload,
            reach: StoatAPI.Reach(tokenOrigins: [origin]))
        return try response.decode(UploadAnswer.self, expecting: 200).id
    }

    // MARK: - Downloading

    /// Where a file can be downloaded from (`{file server}/{tag}/{id}/{filename}`), to hand to an image loader
    /// or a browser: no token is needed. `nil` for a file whose tag or id cannot name a path.
    ///
    /// - Parameter file: The file, as a message's ``Message/attachments`` carries it.
    public func url(of file: File) -> URL? {
        guard !file.tag.isEmpty, !file.id.isEmpty else { return nil }
        let name = file.filename.map(StoatAPI.percentEncoded) ?? "original"
        return URL(
            string: StoatAPI.join(
                url, "/\(StoatAPI.percentEncoded(file.tag))/\(StoatAPI.percentEncoded(file.id))/\(name)"))
    }

    /// Downloads a file's bytes, with no token (stoatchat's file server needs none), following redirects only
    /// within the file server's origin.
    ///
    /// - Parameter file: The file, as a message's ``Message/attachments`` carries it.
    /// - Returns: The file's bytes.
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/notFound`` for a file no message claimed or whose
    ///   message was deleted, ``StoatAPIErrorCode/malformedResponse`` for one over ``maximumDownloadSize``.
    public func download(_ file: File) async throws(StoatAPIError) -> Data {
        guard let target = url(of: file) else {
            throw StoatAPIError(code: .invalidRequest, message: "GET a file: the file has no tag or id")
        }
        let response = try await api.perform(
            .GET, url: target.absoluteString, path: "/\(file.tag)/{id}", auth: nil, headers: [], payload: .none,
            reach: StoatAPI.Reach(accept: "*/*", maximumResponseSize: maximumDownloadSize))
        try response.expect(200)
        return Data(response.body.readableBytesView)
    }
}

/// The file server's answer to an upload: the new file's id.
struct UploadAnswer: Decodable {
    var id: String
}

extension StoatAPI {
    /// The file server this API's root document names (`GET /`, `features.autumn`).
    ///
    /// - Parameter maximumDownloadSize: The largest file the client's ``StoatFileServer/download(_:)`` reads
    ///   into memory; 64 MiB by default.
    /// - Throws: ``StoatAPIError`` from `GET /`, or as ``StoatFileServer/init(api:configuration:maximumDownloadSize:)``
    ///   describes.
    public func fileServer(maximumDownloadSize: Int = 64 << 20) async throws(StoatAPIError) -> StoatFileServer {
        try StoatFileServer(
            api: self, configuration: try await configuration(), maximumDownloadSize: maximumDownloadSize)
    }
}
