import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The file server, on a port of its own: stoatchat's Autumn (`crates/services/autumn/src/api.rs`), whose URL
/// `GET /` names under `features.autumn` — as stoat.chat's CDN is another host than its API.
///
/// - `GET /`: `{"autumn":"Hello, I am a file server!","version":…}`.
/// - `POST /{tag}`: a `multipart/form-data` body whose `file` part is the file, with `X-Session-Token` or
///   `X-Bot-Token`; answers `{"id"}`. Each user may upload 10 files per tag per rate-limit window (Autumn's
///   `upload` bucket; `429 {"retry_after"}` beyond, unless the rate limits are off). Refusals are Stoat errors (`NotAuthenticated`, `InvalidSession` 401,
///   `FileTooSmall`, `FileTooLarge {max}` 422, `FileTypeNotAllowed` 400), and the framework's text for an unknown
///   tag or a body that is not a form with a `file` (400) or is over the body limit (413).
/// - `GET /{tag}/{id}`: an image as it is (Autumn sends a thumbnail; this server does not make them), any other
///   file `308` to `/{tag}/{id}/{filename}`.
/// - `GET /{tag}/{id}/{filename}`: the file, `Content-Disposition: attachment`; `original` redirects (`308`) to
///   the file's name. Only a file a message claimed, and not deleted, is served (`NotFound` otherwise). No
///   token is needed, nor read.
struct FileServerRoutes: Sendable {
    let state: ServerState
    let configuration: ReferenceServer.Configuration

    static let cacheControl = "public, max-age=604800, must-revalidate"

    func router() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        let state = state
        let bodyLimit = configuration.uploadBodyLimit
        router.get("/") { _, _ in
            HTTPRoutes.json(
                .object(["autumn": .string("Hello, I am a file server!"), "version": .string("0.8.8-lifeline")]))
        }
        router.on("/:tag", method: .options) { _, _ in Response(status: .ok) }
        router.post("/:tag") { request, context in
            do throws(APIError) {
                let user = try await state.fileServerUser(
                    sessionToken: request.headers[HTTPRoutes.sessionHeader],
                    botToken: request.headers[HTTPRoutes.botHeader])
                let tag = context.parameters.get("tag") ?? ""
                guard ServerState.fileTags.contains(tag) else { return Self.text("Invalid URL: unknown tag", 400) }
                if let limited = await state.rateLimitUpload(userID: user.id, tag: tag), !limited.allowed {
                    var response = HTTPRoutes.json(.object(["retry_after": .int(limited.resetAfter)]), status: 429)
                    response.headers[HTTPField.Name("X-RateLimit-Limit")!] = String(limited.limit)
                    response.headers[HTTPField.Name("X-RateLimit-Bucket")!] = String(limited.key)
                    response.headers[HTTPField.Name("X-RateLimit-Remaining")!] = String(limited.remaining)
                    response.headers[HTTPField.Name("X-RateLimit-Reset-After")!] = String(limited.resetAfter)
                    return response
                }
                guard let boundary = MultipartForm.boundary(contentType: request.headers[.contentType]) else {
                    return Self.text("Invalid `boundary` for `multipart/form-data` request", 400)
                }
                guard let body = try await Self.readBody(request, limit: bodyLimit, state: state) else {
                    return Self.text("Failed to buffer the request body: length limit exceeded", 413)
                }
                let parsed = body.withUnsafeReadableBytes { bytes in
                    Result { () throws(MultipartForm.Malformed) in try MultipartForm(body: bytes, boundary: boundary) }
                }
                let form: MultipartForm
                switch parsed {
                case .success(let value): form = value
                case .failure(let error):
                    return Self.text("Error parsing `multipart/form-data` request: \(error.reason)", 400)
                }
                guard let part = form.part(named: "file") else { return Self.text("field 'file' is required", 400) }
                let file = try await state.storeUpload(
                    tag: tag, filename: part.filename, declaredType: part.contentType, bytes: part.body, as: user)
                if await state.takeLostUploadAnswer() {
                    // The lost-answer fault: stored, then the connection drops before any answer.
                    try? await context.channel.close().get()
                }
                return HTTPRoutes.json(.object(["id": .string(file.id)]))
            } catch {
                return HTTPRoutes.json(error.wire, status: error.kind.status)
            }
        }
        router.get("/:tag/:id") { request, context in
            do throws(APIError) {
                let tag = context.parameters.get("tag") ?? ""
                guard ServerState.fileTags.contains(tag) else { return Self.text("Invalid URL: unknown tag", 400) }
                let file = try await state.servedFile(tag: tag, id: context.parameters.get("id") ?? "")
                guard case .image = file.metadata else {
                    return Self.redirect("/\(tag)/\(file.id)/\(Self.encoded(file.filename))")
                }
                return Self.contents(file, await state.fileContents[file.id] ?? Data(), disposition: "inline")
            } catch {
                return HTTPRoutes.json(error.wire, status: error.kind.status)
            }
        }
        router.get("/:tag/:id/:filename") { request, context in
            do throws(APIError) {
                let tag = context.parameters.get("tag") ?? ""
                guard ServerState.fileTags.contains(tag) else { return Self.text("Invalid URL: unknown tag", 400) }
                let file = try await state.servedFile(tag: tag, id: context.parameters.get("id") ?? "")
                let raw = context.parameters.get("filename") ?? ""
                let name = raw.removingPercentEncoding ?? raw
                guard name == file.filename else {
                    guard name == "original" else {
                        throw APIError(.notFound, at: "crates/services/autumn/src/api.rs")
                    }
                    return Self.redirect("/\(tag)/\(file.id)/\(Self.encoded(file.filename))")
                }
                return Self.contents(file, await state.fileContents[file.id] ?? Data(), disposition: "attachment")
            } catch {
                return HTTPRoutes.json(error.wire, status: error.kind.status)
            }
        }
        return router
    }

    /// The request's body, read chunk by chunk (at the slow-upload fault's rate, when it is on); nil when it is
    /// over `limit`.
    static func readBody(_ request: Request, limit: Int, state: ServerState) async throws(APIError) -> ByteBuffer? {
        var collected = ByteBuffer()
        do {
            for try await chunk in request.body {
                guard collected.readableBytes + chunk.readableBytes <= limit else { return nil }
                collected.writeImmutableBuffer(chunk)
                await state.countUploadBytes(chunk.readableBytes)
                if let rate = await state.uploadRate() {
                    try await Task.sleep(for: .seconds(Double(chunk.readableBytes) / Double(rate)))
                }
            }
        } catch {
            throw APIError(.internalError, at: "crates/services/autumn/src/api.rs")
        }
        return collected
    }

    static func contents(_ file: StoatFile, _ bytes: Data, disposition: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: file.contentType, .contentDisposition: disposition, .cacheControl: cacheControl,
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .permanentRedirect, headers: [.location: location])
    }

    static func text(_ text: String, _ status: Int) -> Response {
        Response(
            status: .init(code: status), headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A file name as a path segment (`url_escape::encode_component`).
    static func encoded(_ name: String) -> String {
        var encoded = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(hex[Int(byte >> 4)])
                encoded.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return encoded
    }
}
