import Foundation
import LifelineCore
import StoatReferenceServer
import Synchronization
import Testing

@testable import LifelineStoat

/// A directory removed at the end of a test.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `bytes` to a file of the directory and returns its path.
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// The progress an upload reported, in order.
final class ProgressLog: Sendable {
    private let reports = Mutex<[StoatFileServer.Progress]>([])
    var all: [StoatFileServer.Progress] { reports.withLock { $0 } }
    func record(_ progress: StoatFileServer.Progress) { reports.withLock { $0.append(progress) } }
}

@Suite("The file server's client: uploads with progress, downloads, the origin rule", .hangBound)
struct FileServerClientTests {
    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) } }

    @Test("A file streamed from disk: progress rises to the total, the id attaches to a message, the bytes come back")
    func uploadFromDisk() async throws {
        let directory = try TemporaryDirectory()
        let contents = Self.bytes(1_000_000)
        let path = try directory.file("big file.bin", contents)
        try await withReferenceServer { server, api in
            let account = server.defaultAccount
            let credentials = SessionCredentials(token: account.token, userID: account.userID, issuer: api.server)
            let files = try await api.fileServer()
            #expect(files.url == server.fileServerURL)
            #expect(files.limit(for: .attachments, uploader: account.userID) == 20_000_000)
            let log = ProgressLog()
            let id = try await files.upload(contentsOf: path, as: credentials) { log.record($0) }
            #expect(await server.fileContents(id: id) == Data(contents))
            #expect(await server.file(id: id)?.filename == "big file.bin")
            let reports = log.all
            let total = try #require(reports.last?.total)
            #expect(total > Int64(contents.count))
            #expect(reports.last?.sent == total)
            #expect(reports.first?.sent == 0)
            #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.sent <= $1.sent })
            // Streamed in chunks: a megabyte is reported in several steps.
            #expect(Set(reports.map(\.sent)).count > 3)

            let message = try await api.sendMessage(
                OutgoingMessage(content: "with a file", attachments: [id]), in: server.lobbyChannelID, credentials)
            let file = try #require(message.attachments?.first)
            #expect(file.id == id)
            #expect(file.filename == "big file.bin")
            #expect(file.size == contents.count + 16)
            #expect(files.url(of: file)?.absoluteString == "\(server.fileServerURL)/attachments/\(id)/big%20file.bin")
            #expect(try await files.download(file) == Data(contents))
            // A file without a name is fetched as `original`, which redirects on the file server's own origin.
            var unnamed = file
            unnamed.filename = nil
            #expect(try await files.download(unnamed) == Data(contents))
        }
    }

    @Test("Bytes from memory upload too; an unreadable path is invalidRequest with nothing sent")
    func uploadBytesAndMissingFile() async throws {
        try await withReferenceServer { server, api in
            let account = server.defaultAccount
            let credentials = SessionCredentials(token: account.token, userID: account.userID, issuer: api.server)
            let files = try await api.fileServer()
            let id = try await files.upload(Data("in memory".utf8), filename: "memo.txt", as: credentials)
            #expect(await server.fileContents(id: id) == Data("in memory".utf8))
            let missing = try await apiError { () async throws(StoatAPIError) in
                try await files.upload(contentsOf: "/nonexistent/lifeline/file", as: credentials)
            }
            #expect(missing.code == .invalidRequest)
            #expect(await server.socketCounters().uploadsStored == 1)
        }
    }

    @Test(
        "Over the root document's limit: fileTooLarge with the limit before a byte is sent; the server's 422 reads the same"
    )
    func tooLarge() async throws {
        var configuration = ReferenceServer.Configuration()
        configuration.uploadLimits = UploadLimits(newUser: ["attachments": 1000], standard: ["attachments": 1000])
        try await withReferenceServer(configuration) { server, api in
            let account = server.defaultAccount
            let credentials = SessionCredentials(token: account.token, userID: account.userID, issuer: api.server)
            let files = try await api.fileServer()
            let refused = try await apiError { () async throws(StoatAPIError) in
                try await files.upload(Data(Self.bytes(1001)), filename: "big.bin", as: credentials)
            }
            #expect(refused.code == .fileTooLarge)
            #expect(refused.limit == 1000)
            #expect(await server.socketCounters().uploadBytesReceived == 0)
            // The limit lowered after the document was read: the server refuses, with its own max.
            await server.setUploadLimit(tag: "attachments", bytes: 500)
            let serverSaid = try await apiError { () async throws(StoatAPIError) in
                try await files.upload(Data(Self.bytes(800)), filename: "big.bin", as: credentials)
            }
            #expect(serverSaid.code == .fileTooLarge)
            #expect(serverSaid.status == 422)
            #expect(serverSaid.limit == 500)
        }
    }

    @Test("A lost answer is a network failure while the server stored the file; a slow upload reports its steps")
    func faults() async throws {
        try await withReferenceServer { server, api in
            let account = server.defaultAccount
            let credentials = SessionCredentials(token: account.token, userID: account.userID, issuer: api.server)
            let files = try await api.fileServer()
            await server.loseNextUploadAnswers(1)
            let lost = try await apiError { () async throws(StoatAPIError) in
                try await files.upload(Data("lost".utf8), filename: "lost.txt", as: credentials)
            }
            #expect(lost.code == .network)
            #expect(await server.socketCounters().uploadsStored == 1)

            await server.setUploadRate(2_000_000)
            let log = ProgressLog()
            let id = try await files.upload(Data(Self.bytes(2_000_000)), filename: "slow.bin", as: credentials) {
                log.record($0)
            }
            #expect(await server.fileContents(id: id)?.count == 2_000_000)
            #expect(log.all.last.map { $0.sent == $0.total } == true)
        }
    }

    @Test("The token goes only to the API and the file server GET / names: a redirect elsewhere is refused unsent")
    func redirectRefused() async throws {
        try await withScriptedServer({ _ in .json(200, #"{"id":"ELSEWHERE"}"#) }) { elsewhere in
            try await withScriptedServer({ request in
                .redirect(307, to: "http://127.0.0.1:\(elsewhere.port)\(request.target)")
            }) { fileServer in
                let root =
                    #"{"ws":"ws://127.0.0.1:1/events","features":{"autumn":{"enabled":true,"url":"\#(fileServer.url)"}}}"#
                try await withScriptedServer({ _ in .json(200, root) }) { apiServer in
                    let api = StoatAPI(baseURL: apiServer.url, requestTimeout: .failureBound)
                    let files = try await api.fileServer()
                    let credentials = SessionCredentials(token: "TOKEN-SECRET", issuer: api.server)
                    let error = try await apiError { () async throws(StoatAPIError) in
                        try await files.upload(Data("x".utf8), filename: "x.txt", as: credentials)
                    }
                    #expect(error.code == .redirectRefused)
                    #expect(elsewhere.requests.isEmpty)
                    #expect(fileServer.requests.map(\.method) == ["POST"])
                    #expect(fileServer.requests.first?.header("x-session-token") == "TOKEN-SECRET")
                    #expect(!"\(error)".contains("TOKEN-SECRET"))
                    // The API's own call with a foreign full URL sends nothing either.
                    let foreign = try await apiError { () async throws(StoatAPIError) in
                        _ = try await api.perform(
                            .GET, url: "\(elsewhere.url)/x", path: "/x", auth: credentials.authorization, headers: [],
                            payload: .none)
                    }
                    #expect(foreign.code == .foreignCredentials)
                    #expect(elsewhere.requests.isEmpty)
                }
            }
        }
    }

    @Test("A download carries no token")
    func downloadWithoutToken() async throws {
        try await withScriptedServer({ _ in ScriptedResponse(status: 200, body: "file bytes") }) { fileServer in
            let root =
                #"{"ws":"ws://127.0.0.1:1/events","features":{"autumn":{"enabled":true,"url":"\#(fileServer.url)"}}}"#
            try await withScriptedServer({ _ in .json(200, root) }) { apiServer in
                let api = StoatAPI(baseURL: apiServer.url, requestTimeout: .failureBound)
                let files = try await api.fileServer()
                let bytes = try await files.download(File(id: "ID", tag: "attachments", filename: "a.txt"))
                #expect(bytes == Data("file bytes".utf8))
                #expect(fileServer.requests.map(\.target) == ["/attachments/ID/a.txt"])
                #expect(fileServer.requests.first?.header("x-session-token") == nil)
            }
        }
    }

    @Test(
        "The file server's URL: none named is fileServerUnavailable; plaintext for an HTTPS API, or not HTTP, is refused"
    )
    func fileServerURLChecked() throws {
        let https = StoatAPI(baseURL: URL(string: "https://api.example")!)
        func configuration(_ autumn: RootConfiguration.Service) -> RootConfiguration {
            RootConfiguration(
                eventsURL: URL(string: "wss://api.example/events")!, features: .init(fileServer: autumn))
        }
        #expect(throws: StoatAPIError.self) {
            try StoatFileServer(api: https, configuration: configuration(.init()))
        }
        do {
            _ = try StoatFileServer(
                api: https, configuration: configuration(.init(enabled: true, url: "http://cdn.example")))
            Issue.record("a plaintext file server was accepted for an HTTPS API")
        } catch {
            #expect(error.code == .insecureFileServerURL)
        }
        do {
            _ = try StoatFileServer(api: https, configuration: configuration(.init(enabled: true, url: "ftp://cdn")))
            Issue.record("an ftp file server was accepted")
        } catch {
            #expect(error.code == .insecureFileServerURL)
        }
        let files = try StoatFileServer(
            api: https, configuration: configuration(.init(enabled: true, url: "https://cdn.example/")))
        #expect(files.url.absoluteString == "https://cdn.example")
        #expect(files.limit(for: .attachments, uploader: nil) == nil)
    }

    @Test("The root document's limits: a new account's for 72 hours after its id's time, an established one's after")
    func limitsByAge() throws {
        let json = #"""
            {"ws":"wss://a/events","features":{"autumn":{"enabled":true,"url":"https://cdn"},"limits":{
            "global":{"new_user_hours":72,"body_limit_size":20000000},
            "new_user":{"message_attachments":3,"file_upload_size_limits":{"attachments":100}},
            "default":{"message_attachments":5,"file_upload_size_limits":{"attachments":200,"avatars":1e300}}}}}
            """#
        let configuration = try JSONDecoder().decode(RootConfiguration.self, from: Data(json.utf8))
        let limits = try #require(configuration.features.limits)
        #expect(limits.newUser.messageAttachments == 3)
        #expect(limits.standard.uploadSizes == ["attachments": 200])
        #expect(limits.bodyLimit == 20_000_000)
        let files = try StoatFileServer(api: StoatAPI(baseURL: URL(string: "https://a")!), configuration: configuration)
        // 01J… is a ULID of 2024; "now" 2 days after it is new, 4 days after is not.
        let user = "01J00000000000000000000000"
        let created = try #require(ULID.date(of: user))
        #expect(files.limit(for: .attachments, uploader: user, at: created.addingTimeInterval(2 * 86_400)) == 100)
        #expect(files.limit(for: .attachments, uploader: user, at: created.addingTimeInterval(4 * 86_400)) == 200)
        #expect(files.limit(for: .attachments, uploader: nil) == 200)
        #expect(files.limit(for: .avatars, uploader: nil) == nil)
    }
}
