import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import StoatReferenceServer

extension ReferenceServer {
    /// Uploads `bytes` to the file server as a `multipart/form-data` body whose part is named `field`.
    func upload(
        _ bytes: [UInt8], tag: String = "attachments", filename: String = "note.txt",
        contentType: String = "text/plain", field: String = "file", token: String?,
        headers extra: [(String, String)] = []
    ) async throws -> HTTPAnswer {
        let boundary = "test-boundary-\(UUID().uuidString)"
        var body = ByteBuffer()
        body.writeString(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(filename)\"\r\n"
                + "Content-Type: \(contentType)\r\n\r\n")
        body.writeBytes(bytes)
        body.writeString("\r\n--\(boundary)--\r\n")
        var request = HTTPClientRequest(url: fileServerURL.absoluteString + "/\(tag)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        if let token { request.headers.add(name: "X-Session-Token", value: token) }
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        request.body = .bytes(body)
        return try await fetch(request)
    }

    /// A plain GET on the file server, redirects not followed.
    func download(_ path: String) async throws -> HTTPAnswer {
        var request = HTTPClientRequest(url: fileServerURL.absoluteString + path)
        request.method = .GET
        return try await fetch(request)
    }

    private func fetch(_ request: HTTPClientRequest) async throws -> HTTPAnswer {
        let response = try await FileServerTestClient.client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 64 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return HTTPAnswer(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
    }
}

/// An HTTP client that follows no redirect, so a test sees the file server's `308`.
enum FileServerTestClient {
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}

@Suite("The file server (stoatchat's Autumn)", .hangBound)
struct FileServerTests {
    @Test("GET / names the file server on a port of its own, and states the upload limits under features.limits")
    func rootDocument() async throws {
        try await withServer { server throws in
            let root = try await server.http(.GET, "/")
            let features = try #require(root.json?["features"] as? [String: Any])
            let autumn = try #require(features["autumn"] as? [String: Any])
            #expect(autumn["enabled"] as? Bool == true)
            #expect(autumn["url"] as? String == server.fileServerURL.absoluteString)
            #expect(server.fileServerURL.port != server.apiURL.port)
            let limits = try #require(features["limits"] as? [String: Any])
            let standard = try #require(limits["default"] as? [String: Any])
            let sizes = try #require(standard["file_upload_size_limits"] as? [String: Int])
            #expect(sizes["attachments"] == 20_000_000)
            #expect(sizes["emojis"] == 500_000)
            #expect((limits["new_user"] as? [String: Any])?["message_attachments"] as? Int == 5)
            #expect((limits["global"] as? [String: Any])?["new_user_hours"] as? Int == 72)
            let hello = try await server.download("/")
            #expect(hello.json?["autumn"] as? String == "Hello, I am a file server!")
        }
    }

    @Test("An upload answers {id}; a message's attachments become File objects, served once claimed, gone once deleted")
    func uploadAttachAndDownload() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let bytes = Array("hello, file server".utf8)
            let uploaded = try await server.upload(bytes, filename: "hello world.txt", token: account.token)
            #expect(uploaded.status == 200)
            let id = try #require(uploaded.json?["id"] as? String)
            #expect(id.count == 42)
            #expect(await server.fileContents(id: id) == Data(bytes))
            // Not claimed by a message yet: not served.
            #expect(try await server.download("/attachments/\(id)/hello%20world.txt").errorType == "NotFound")

            let socket = try await server.connectReady(token: account.token)
            let sent = try await server.http(
                .POST, "/channels/\(server.lobbyChannelID)/messages", token: account.token,
                json: #"{"content":"a file","attachments":["\#(id)"]}"#)
            #expect(sent.status == 200)
            let attachment = try #require((sent.json?["attachments"] as? [[String: Any]])?.first)
            #expect(attachment["_id"] as? String == id)
            #expect(attachment["tag"] as? String == "attachments")
            #expect(attachment["filename"] as? String == "hello world.txt")
            #expect(attachment["content_type"] as? String == "text/plain")
            #expect((attachment["metadata"] as? [String: Any])?["type"] as? String == "Text")
            // Autumn stores the bytes with its encryption's 16-byte tag, and says so in `size`.
            #expect(attachment["size"] as? Int == bytes.count + 16)
            let event = try #require(try await socket.nextJSON(skipping: ["UserUpdate", "ChannelAck"]))
            #expect(event["type"] as? String == "Message")
            #expect(((event["attachments"] as? [[String: Any]])?.first)?["_id"] as? String == id)

            // A file that is not an image is redirected from its preview to its name; `original` too.
            let preview = try await server.download("/attachments/\(id)")
            #expect(preview.status == 308)
            #expect(preview.headers["location"] == "/attachments/\(id)/hello%20world.txt")
            let original = try await server.download("/attachments/\(id)/original")
            #expect(original.status == 308)
            #expect(original.headers["location"] == "/attachments/\(id)/hello%20world.txt")
            let file = try await server.download("/attachments/\(id)/hello%20world.txt")
            #expect(file.status == 200)
            #expect(file.body == Data(bytes))
            #expect(file.headers["content-disposition"] == "attachment")
            #expect(try await server.download("/attachments/\(id)/other.txt").errorType == "NotFound")
            #expect(try await server.download("/avatars/\(id)/hello%20world.txt").errorType == "NotFound")

            // A file is claimed once.
            let again = try await server.http(
                .POST, "/channels/\(server.lobbyChannelID)/messages", token: account.token,
                json: #"{"attachments":["\#(id)"]}"#)
            #expect(again.errorType == "NotFound")

            let messageID = try #require(sent.json?["_id"] as? String)
            #expect(
                try await server.http(
                    .DELETE, "/channels/\(server.lobbyChannelID)/messages/\(messageID)", token: account.token
                ).status == 204)
            #expect(try await server.download("/attachments/\(id)/hello%20world.txt").errorType == "NotFound")
            await socket.close()
        }
    }

    @Test("A message of attachments alone is no EmptyMessage; more than 5 is TooManyAttachments {max: 5}")
    func attachmentsOnlyAndTooMany() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            var ids: [String] = []
            for index in 0..<6 {
                let answer = try await server.upload(Array("file \(index)".utf8), token: token)
                ids.append(try #require(answer.json?["id"] as? String))
            }
            let path = "/channels/\(server.lobbyChannelID)/messages"
            let list = ids.map { "\"\($0)\"" }.joined(separator: ",")
            let tooMany = try await server.http(.POST, path, token: token, json: #"{"attachments":[\#(list)]}"#)
            #expect(tooMany.status == 400)
            #expect(tooMany.errorType == "TooManyAttachments")
            #expect(tooMany.json?["max"] as? Int == 5)
            let alone = try await server.http(.POST, path, token: token, json: #"{"attachments":["\#(ids[0])"]}"#)
            #expect(alone.status == 200)
            #expect(alone.json?["content"] == nil)
            #expect((alone.json?["attachments"] as? [Any])?.count == 1)
        }
    }

    @Test(
        "Refusals: no token NotAuthenticated, a bad one InvalidSession, an empty file FileTooSmall, a text avatar FileTypeNotAllowed, an unknown tag 400"
    )
    func refusals() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let anonymous = try await server.upload([1], token: nil)
            #expect(anonymous.status == 401)
            #expect(anonymous.errorType == "NotAuthenticated")
            let wrong = try await server.upload([1], token: "not-a-token")
            #expect(wrong.status == 401)
            #expect(wrong.errorType == "InvalidSession")
            let empty = try await server.upload([], token: token)
            #expect(empty.status == 422)
            #expect(empty.errorType == "FileTooSmall")
            let avatar = try await server.upload(Array("text".utf8), tag: "avatars", token: token)
            #expect(avatar.status == 400)
            #expect(avatar.errorType == "FileTypeNotAllowed")
            let png =
                [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
                + [0, 0, 0, 64, 0, 0, 0, 32, 8, 6, 0, 0, 0]
            let image = try await server.upload(png.map(UInt8.init), tag: "avatars", filename: "a.png", token: token)
            #expect(image.status == 200)
            let imageID = try #require(image.json?["id"] as? String)
            let stored = try #require(await server.file(id: imageID))
            #expect(stored.metadata == .image(width: 64, height: 32))
            #expect(stored.contentType == "image/png")
            let unknown = try await server.upload([1], tag: "stickers", token: token)
            #expect(unknown.status == 400)
            #expect(unknown.errorType == nil)
            let notAForm = try await server.upload([1], field: "other", token: token)
            #expect(notAForm.status == 400)
            #expect(await server.socketCounters().uploadsStored == 1)
        }
    }

    @Test("A file over the tag's limit is 422 {FileTooLarge, max}; a body over the body limit is the framework's 413")
    func sizeLimits() async throws {
        try await withServer(configure: { $0.uploadBodyLimit = 4096 }) { server throws in
            let token = server.defaultAccount.token
            await server.setUploadLimit(tag: "attachments", bytes: 1000)
            let root = try await server.http(.GET, "/")
            let limits = (root.json?["features"] as? [String: Any])?["limits"] as? [String: Any]
            #expect(
                ((limits?["default"] as? [String: Any])?["file_upload_size_limits"] as? [String: Int])?["attachments"]
                    == 1000)
            #expect(try await server.upload([UInt8](repeating: 7, count: 1000), token: token).status == 200)
            let large = try await server.upload([UInt8](repeating: 7, count: 1001), token: token)
            #expect(large.status == 422)
            #expect(large.errorType == "FileTooLarge")
            #expect(large.json?["max"] as? Int == 1000)
            let huge = try await server.upload([UInt8](repeating: 7, count: 5000), token: token)
            #expect(huge.status == 413)
            // The admin route does the same, and a reset restores the configured limits.
            #expect(
                try await server.admin(.POST, "/upload-limit", json: #"{"tag":"attachments","bytes":10}"#).status == 204
            )
            #expect(try await server.upload([UInt8](repeating: 7, count: 11), token: token).json?["max"] as? Int == 10)
            #expect(try await server.admin(.POST, "/reset").status == 204)
            #expect(try await server.upload([UInt8](repeating: 7, count: 2000), token: token).status == 200)
        }
    }

    @Test("The lost-answer fault stores the upload and drops the connection; the admin route sets it too")
    func lostUploadAnswer() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            #expect(try await server.admin(.POST, "/lose-upload-answers", json: #"{"count":1}"#).status == 204)
            await #expect(throws: (any Error).self) {
                _ = try await server.upload(Array("lost".utf8), token: token)
            }
            let counters = await server.socketCounters()
            #expect(counters.lostUploadAnswers == 1)
            #expect(counters.uploadsStored == 1)
            #expect(try await server.upload(Array("kept".utf8), token: token).status == 200)
        }
    }

    @Test("The slow-upload fault reads the body at its rate: part of it has arrived while the upload is unanswered")
    func slowUpload() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            #expect(
                try await server.admin(.POST, "/slow-uploads", json: #"{"bytes_per_second":20000}"#).status == 204)
            let size = 200_000
            let upload = Task { try await server.upload([UInt8](repeating: 1, count: size), token: token) }
            try await server.waitUntil(timeout: .failureBound) { _, counters in counters.uploadBytesReceived > 0 }
            let partway = await server.socketCounters()
            #expect(partway.uploadsStored == 0)
            #expect(partway.uploadBytesReceived < size)
            await server.setUploadRate(nil)
            #expect(try await upload.value.status == 200)
            #expect(await server.socketCounters().uploadBytesReceived >= size)
        }
    }

    @Test("Uploads survive a restart of a server with a data file")
    func persisted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("files-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("data.sqlite").path
        var id = ""
        try await withServer(configure: { $0.dataFile = path }) { server throws in
            let answer = try await server.upload(Array("kept across restarts".utf8), token: server.defaultAccount.token)
            id = try #require(answer.json?["id"] as? String)
        }
        try await withServer(configure: { $0.dataFile = path }) { server throws in
            #expect(await server.fileContents(id: id) == Data("kept across restarts".utf8))
            #expect(await server.file(id: id)?.filename == "note.txt")
        }
    }
}

@Suite("multipart/form-data bodies")
struct MultipartFormTests {
    func parse(_ text: String, boundary: String = "XYZ") throws(MultipartForm.Malformed) -> MultipartForm {
        let bytes = Array(text.utf8)
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(MultipartForm.Malformed) in try MultipartForm(body: raw, boundary: boundary) }
        }
        return try result.get()
    }

    @Test("Parts keep their names, file names, types and bytes, CRLF inside a part included")
    func parts() throws {
        let form = try parse(
            "--XYZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\none\r\n"
                + "--XYZ\r\ncontent-disposition: form-data; name=\"file\"; filename=\"x \\\"y\\\".bin\"\r\n"
                + "Content-Type: application/x-thing\r\n\r\nline\r\nnext\r\n--XY\r\n--XYZ--\r\n")
        #expect(form.parts.count == 2)
        #expect(form.part(named: "a")?.body == Array("one".utf8))
        let file = try #require(form.part(named: "file"))
        #expect(file.contentType == "application/x-thing")
        #expect(file.body == Array("line\r\nnext\r\n--XY".utf8))
        #expect(file.filename != nil)
    }

    @Test("The boundary comes from the Content-Type header, quoted or not; anything else is no form")
    func boundary() {
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(MultipartForm.boundary(contentType: "Multipart/Form-Data; charset=x; boundary=\"a b\"") == "a b")
        #expect(MultipartForm.boundary(contentType: "application/json") == nil)
        #expect(MultipartForm.boundary(contentType: "multipart/form-data") == nil)
        #expect(MultipartForm.boundary(contentType: nil) == nil)
    }

    @Test("A body without the boundary, without a closing boundary or with a nameless part is malformed")
    func malformed() {
        #expect(throws: MultipartForm.Malformed.self) { try parse("hello") }
        #expect(throws: MultipartForm.Malformed.self) {
            try parse("--XYZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end")
        }
        #expect(throws: MultipartForm.Malformed.self) {
            try parse("--XYZ\r\nContent-Type: text/plain\r\n\r\nx\r\n--XYZ--")
        }
        #expect(throws: MultipartForm.Malformed.self) { try parse("--XYZ\r\nno blank line") }
    }
}
