#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension StoatClient {
    // MARK: - Files

    /// The file server the API's root document names (``StoatAPI/fileServer(maximumDownloadSize:)``).
    ///
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/requestFailed``; its cause is the
    ///   ``StoatAPIError`` (``StoatAPIErrorCode/fileServerUnavailable``,
    ///   ``StoatAPIErrorCode/insecureFileServerURL``, or a failure of `GET /`).
    public func fileServer() async throws(StoatClientError) -> StoatFileServer {
        do {
            return try await api.fileServer()
        } catch {
            throw StoatClientError(code: .requestFailed, message: "The file server is not available", cause: error)
        }
    }

    /// Uploads a file from disk to the file server as the signed-in user, streamed, with progress
    /// (``StoatFileServer/upload(contentsOf:tag:filename:contentType:as:progress:)``).
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - tag: What the file is for; a message's attachment by default.
    ///   - filename: The name to give it; the path's last component by default.
    ///   - progress: Called as the request is sent, with the bytes sent of the total.
    /// - Returns: The file's id, to put in ``OutgoingMessage/attachments``.
    /// - Throws: ``StoatClientError``: ``StoatClientErrorCode/notSignedIn`` without a session,
    ///   ``StoatClientErrorCode/requestFailed`` with the ``StoatAPIError`` as its cause
    ///   (``StoatAPIErrorCode/fileTooLarge`` with its ``StoatAPIErrorDetails/limit`` for a file over the limit).
    public func upload(
        contentsOf path: String, tag: StoatFileServer.Tag = .attachments, filename: String? = nil,
        progress: @escaping @Sendable (StoatFileServer.Progress) -> Void = { _ in }
    ) async throws(StoatClientError) -> String {
        guard let credentials = credentials.value else {
            throw StoatClientError(code: .notSignedIn, message: "an upload needs a session")
        }
        let files = try await fileServer()
        do {
            return try await files.upload(
                contentsOf: path, tag: tag, filename: filename, as: credentials, progress: progress)
        } catch {
            throw StoatClientError(code: .requestFailed, message: "The upload failed", cause: error)
        }
    }

    /// Downloads one of a message's files (``StoatFileServer/download(_:)``): no token is sent.
    ///
    /// - Parameter file: The file, from a message's ``Message/attachments``.
    /// - Returns: Its bytes.
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/requestFailed``.
    public func download(_ file: File) async throws(StoatClientError) -> Data {
        let files = try await fileServer()
        do {
            return try await files.download(file)
        } catch {
            throw StoatClientError(code: .requestFailed, message: "The download failed", cause: error)
        }
    }
}
