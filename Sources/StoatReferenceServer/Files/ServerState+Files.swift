#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The file server's facet: stoatchat's Autumn (`crates/services/autumn/src/api.rs`) — uploads to a tag, the
/// limits of the uploader's account, downloads of files a message claimed — and the attachments a message
/// claims when it is sent (`File::use_attachment`, `crates/core/database/src/models/files/`), with the file
/// server's faults.
extension ServerState {
    /// The tags a file is uploaded to (Autumn's `Tag`).
    static let fileTags: Set<String> = ["attachments", "avatars", "backgrounds", "icons", "banners", "emojis"]
    /// The most attachments one message carries (`features.limits.*.message_attachments`).
    static let maximumAttachments = 5
    /// How many hours an account counts as new, when its own limits apply (`new_user_hours`).
    static let newUserHours = 72
    /// The smallest file accepted (`files.limit.min_file_size`).
    static let minimumFileSize = 1
    /// What the stored size adds to the bytes: the authentication tag of Autumn's encryption at rest.
    static let fileAuthenticationTagSize = 16

    // MARK: Guard

    /// The file server's `User` extractor (`crates/core/database/src/models/users/axum.rs`): a bot by
    /// `X-Bot-Token`, else the user of `X-Session-Token`; `NotAuthenticated` without either, `InvalidSession`
    /// for a token that names nothing. Unlike the API's guard, its failures are Stoat errors, not the catcher's.
    func fileServerUser(sessionToken: String?, botToken: String?) throws(APIError) -> StoatUser {
        let location = "crates/core/database/src/models/users/axum.rs"
        if let token = sessionToken { observeSessionToken(token) }
        if let botToken {
            guard !sessionOutageActive(), let botID = botIDByToken[botToken], let user = users[botID] else {
                throw APIError(.invalidSession, at: location)
            }
            return user
        }
        guard let sessionToken else { throw APIError(.notAuthenticated, at: location) }
        guard !sessionOutageActive(), let session = sessions[sessionToken], let user = users[session.userID] else {
            throw APIError(.invalidSession, at: location)
        }
        return user
    }

    // MARK: Uploads

    /// How many uploads one user may make per rate-limit window (Autumn's `upload` bucket).
    static let uploadsPerWindow = 10

    /// Counts an upload against the user's `upload` bucket (Autumn's `AutumnRatelimits`, per tag); nil when the
    /// rate limits are off.
    func rateLimitUpload(userID: String, tag: String) -> RateLimiter.Outcome? {
        let policy = configuration.rateLimits
        guard policy.isEnabled else { return nil }
        let key = RateLimiter.key(identifier: userID, bucket: "upload", resource: tag)
        let nowMilliseconds = Int64((now().timeIntervalSince1970 * 1000).rounded(.down))
        let outcome = rateLimiter.take(
            key: key, limit: Self.uploadsPerWindow, now: nowMilliseconds, window: policy.window.milliseconds)
        if !outcome.allowed {
            rateLimited += 1
            changed()
        }
        return outcome
    }

    /// The upload limit of `tag` for `user`: the new user's while the account is younger than
    /// ``newUserHours`` (by its id's time), the default's after, as `User::limits` decides.
    func uploadLimit(tag: String, for user: StoatUser) -> Int {
        let created = Identifiers.time(ofULID: user.id) ?? .distantPast
        let isNew = now().timeIntervalSince(created) <= TimeInterval(Self.newUserHours * 3600)
        let limits = isNew ? uploadLimits.newUser : uploadLimits.standard
        return limits[tag] ?? 0
    }

    /// `POST /{tag}` after the body was read: the checks of Autumn's `upload_file` in its order — too small,
    /// over the uploader's limit for the tag (`FileTooLarge {max}`), not an image where the tag needs one —
    /// then the file is stored, not yet used by anything.
    func storeUpload(
        tag: String, filename: String?, declaredType: String?, bytes: [UInt8], as user: StoatUser
    ) throws(APIError) -> StoatFile {
        let location = "crates/services/autumn/src/api.rs"
        guard bytes.count >= Self.minimumFileSize else { throw APIError(.fileTooSmall, at: location) }
        let limit = uploadLimit(tag: tag, for: user)
        guard bytes.count <= limit else {
            throw APIError(.fileTooLarge, [.init(key: "max", value: .integer(limit))], at: location)
        }
        let contentType = StoatFile.Metadata.contentType(of: bytes, declared: declaredType)
        let metadata = StoatFile.Metadata.sniff(bytes, contentType: contentType)
        if tag != "attachments" {
            guard case .image = metadata else { throw APIError(.fileTypeNotAllowed, at: location) }
        }
        let id = tag == "emojis" ? Identifiers.ulid(at: now()) : Identifiers.fileID()
        let file = StoatFile(
            id: id, tag: tag, filename: filename ?? "unnamed-file", metadata: metadata, contentType: contentType,
            size: bytes.count + Self.fileAuthenticationTagSize, uploader: user.id, messageID: nil, deleted: false)
        fileContents[id] = Data(bytes)
        upsert(file: file)
        uploadsStored += 1
        changed()
        return file
    }

    func upsert(file: StoatFile) {
        files[file.id] = file
        if let bytes = fileContents[file.id] { persist(.file, id: file.id, FileRecord(file: file, bytes: bytes)) }
    }

    // MARK: Attachments

    /// Claims each id as an attachment of `messageID` (`File::use_attachment`): a file of the `attachments` tag
    /// that no message claimed yet, by anyone (stoatchat does not check the uploader); otherwise `NotFound`.
    /// Nothing is claimed unless every id may be.
    func claimAttachments(_ ids: [String], for messageID: String) throws(APIError) -> [StoatFile] {
        var claimed: [StoatFile] = []
        for id in ids {
            guard var file = files[id], file.tag == "attachments", file.messageID == nil,
                !claimed.contains(where: { $0.id == id })
            else {
                throw APIError(.notFound, at: "crates/core/database/src/models/files/ops/mongodb.rs")
            }
            file.messageID = messageID
            claimed.append(file)
        }
        for file in claimed { upsert(file: file) }
        return claimed
    }

    /// `Message::delete`'s `mark_attachments_as_deleted`: the message's files are no longer served.
    func markAttachmentsDeleted(of message: StoatMessage) {
        for attachment in message.attachments ?? [] {
            guard var file = files[attachment.id] else { continue }
            file.deleted = true
            upsert(file: file)
        }
    }

    // MARK: Downloads

    /// A file Autumn serves: of that tag, not deleted, and claimed by something (`used_for`); `NotFound`
    /// otherwise, so an upload that no message claimed is never served.
    func servedFile(tag: String, id: String) throws(APIError) -> StoatFile {
        guard let file = files[id], file.tag == tag, !file.deleted, file.messageID != nil else {
            throw APIError(.notFound, at: "crates/services/autumn/src/api.rs")
        }
        return file
    }

    // MARK: Faults

    /// Loses the answers to the next `count` uploads the file server stores.
    func loseUploadAnswers(_ count: Int) {
        faults.loseUploadAnswers = max(0, count)
        changed()
    }

    /// Whether the answer to the upload just stored is to be lost; counts it down.
    func takeLostUploadAnswer() -> Bool {
        guard faults.loseUploadAnswers > 0 else { return false }
        faults.loseUploadAnswers -= 1
        lostUploadAnswers += 1
        changed()
        return true
    }

    /// Reads uploads at most this fast (bytes per second); nil reads them at once.
    func setUploadRate(_ bytesPerSecond: Int?) {
        faults.uploadBytesPerSecond = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        changed()
    }

    /// The upload rate fault in force.
    func uploadRate() -> Int? { faults.uploadBytesPerSecond }

    /// Sets the upload limit of a tag, for new and established accounts alike (`GET /` states it).
    func setUploadLimit(tag: String, bytes: Int) {
        uploadLimits.newUser[tag] = bytes
        uploadLimits.standard[tag] = bytes
        changed()
    }

    /// Counts bytes of an upload's body as they arrive, for ``ReferenceServer/uploadProgress()``.
    func countUploadBytes(_ count: Int) {
        uploadBytesReceived += count
        changed()
    }
}

extension Identifiers {
    private static let nanoidAlphabet = Array(
        "_-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    /// A file id as Autumn makes one: `nanoid!(42)`, 42 characters of nanoid's URL-safe alphabet.
    static func fileID() -> String {
        String(decoding: (0..<42).map { _ in nanoidAlphabet[Int.random(in: 0..<nanoidAlphabet.count)] }, as: UTF8.self)
    }
}

/// The file server's upload limits per tag, in bytes: a new account's and an established one's
/// (`features.limits.new_user` and `.default`, `file_upload_size_limit`).
public struct UploadLimits: Sendable, Equatable {
    /// The limits of an account younger than 72 hours.
    public var newUser: [String: Int]
    /// The limits of every other account.
    public var standard: [String: Int]

    /// Creates limits.
    public init(newUser: [String: Int], standard: [String: Int]) {
        self.newUser = newUser
        self.standard = standard
    }

    /// stoatchat's defaults (`Revolt.toml`), the same for both: attachments 20 MB, avatars 4 MB, backgrounds
    /// 6 MB, icons 2.5 MB, banners 6 MB, emojis 500 KB.
    public static let stoat: UploadLimits = {
        let limits = [
            "attachments": 20_000_000, "avatars": 4_000_000, "backgrounds": 6_000_000, "icons": 2_500_000,
            "banners": 6_000_000, "emojis": 500_000,
        ]
        return UploadLimits(newUser: limits, standard: limits)
    }()
}
