/// The error kinds Stoat answers over REST and the socket (`crates/core/result`), with the HTTP status each
/// answers with over REST.
public struct StoatErrorKind: Sendable, Hashable, CustomStringConvertible {
    /// The wire name (`"InvalidSession"`, …).
    public let name: String
    /// The HTTP status it answers with over REST.
    public let status: Int

    /// Creates an error kind.
    public init(name: String, status: Int) {
        self.name = name
        self.status = status
    }

    /// The wire name.
    public var description: String { name }

    /// The session token is unknown or its user cannot use it (401; on the socket).
    public static let invalidSession = StoatErrorKind(name: "InvalidSession", status: 401)
    /// No session was given (401).
    public static let notAuthenticated = StoatErrorKind(name: "NotAuthenticated", status: 401)
    /// Wrong email or password (401).
    public static let invalidCredentials = StoatErrorKind(name: "InvalidCredentials", status: 401)
    /// A wrong or expired MFA ticket, TOTP code or recovery code (401).
    public static let invalidToken = StoatErrorKind(name: "InvalidToken", status: 401)
    /// The email address is not verified yet (403).
    public static let unverifiedAccount = StoatErrorKind(name: "UnverifiedAccount", status: 403)
    /// Too many wrong passwords (403).
    public static let lockedOut = StoatErrorKind(name: "LockedOut", status: 403)
    /// The password appears in a breach list (400).
    public static let compromisedPassword = StoatErrorKind(name: "CompromisedPassword", status: 400)
    /// Stoat's abuse shield refused the request (400).
    public static let blockedByShield = StoatErrorKind(name: "BlockedByShield", status: 400)
    /// The captcha was missing or wrong (400).
    public static let captchaFailed = StoatErrorKind(name: "CaptchaFailed", status: 400)
    /// An MFA response of a method the account does not have (400).
    public static let disallowedMFAMethod = StoatErrorKind(name: "DisallowedMFAMethod", status: 400)
    /// Every discriminator of the username is in use (409).
    public static let usernameTaken = StoatErrorKind(name: "UsernameTaken", status: 409)
    /// The username is blocked (400).
    public static let invalidUsername = StoatErrorKind(name: "InvalidUsername", status: 400)
    /// The user finished onboarding already (403).
    public static let alreadyOnboarded = StoatErrorKind(name: "AlreadyOnboarded", status: 403)
    /// The request's data is invalid (400); the body carries an `error` text.
    public static let failedValidation = StoatErrorKind(name: "FailedValidation", status: 400)
    /// Something broke on the server (500).
    public static let internalError = StoatErrorKind(name: "InternalError", status: 500)
    /// The thing asked for does not exist, or the user may not know it does (404).
    public static let notFound = StoatErrorKind(name: "NotFound", status: 404)
    /// The user lacks a permission (403); the body names it in `permission`.
    public static let missingPermission = StoatErrorKind(name: "MissingPermission", status: 403)
    /// The operation is not allowed, e.g. sort `Relevance` without a search, or a reused nonce (400).
    public static let invalidOperation = StoatErrorKind(name: "InvalidOperation", status: 400)
    /// A message without content, attachments or embeds (422).
    public static let emptyMessage = StoatErrorKind(name: "EmptyMessage", status: 422)
    /// A message longer than the limit (422).
    public static let payloadTooLarge = StoatErrorKind(name: "PayloadTooLarge", status: 422)
    /// An edit of someone else's message (403).
    public static let cannotEditMessage = StoatErrorKind(name: "CannotEditMessage", status: 403)
    /// A message sent again within the channel's slowmode (429); the body carries `retry_after` in seconds.
    public static let inSlowmode = StoatErrorKind(name: "InSlowmode", status: 429)
    /// A property value is not allowed (400).
    public static let invalidProperty = StoatErrorKind(name: "InvalidProperty", status: 400)
    /// Mention flags sent by a user who is not a bot (400).
    public static let isNotBot = StoatErrorKind(name: "IsNotBot", status: 400)
    /// More replies than allowed (400); the body carries `max`.
    public static let tooManyReplies = StoatErrorKind(name: "TooManyReplies", status: 400)
    /// The user is already a member (409).
    public static let alreadyInServer = StoatErrorKind(name: "AlreadyInServer", status: 409)
    /// The change has no effect (400).
    public static let noEffect = StoatErrorKind(name: "NoEffect", status: 400)
    /// A route bots may not call, such as an acknowledgement (400).
    public static let isBot = StoatErrorKind(name: "IsBot", status: 400)
    /// A message names more attachments than the account may send (400, with `max`).
    public static let tooManyAttachments = StoatErrorKind(name: "TooManyAttachments", status: 400)
    /// An upload is empty (422; the file server's).
    public static let fileTooSmall = StoatErrorKind(name: "FileTooSmall", status: 422)
    /// An upload is over the account's limit for its tag (422, with `max`; the file server's).
    public static let fileTooLarge = StoatErrorKind(name: "FileTooLarge", status: 422)
    /// An upload that is not an image, to a tag that takes only images (400; the file server's).
    public static let fileTypeNotAllowed = StoatErrorKind(name: "FileTypeNotAllowed", status: 400)

    /// The kinds the admin API can name, by wire name.
    static let known: [String: StoatErrorKind] = Dictionary(
        uniqueKeysWithValues: [
            invalidSession, notAuthenticated, invalidCredentials, invalidToken, unverifiedAccount, lockedOut,
            compromisedPassword, blockedByShield, captchaFailed, disallowedMFAMethod, usernameTaken, invalidUsername,
            alreadyOnboarded, failedValidation, internalError, notFound, missingPermission, invalidOperation,
            emptyMessage, payloadTooLarge, cannotEditMessage, inSlowmode, invalidProperty, isNotBot, tooManyReplies,
            alreadyInServer, noEffect, isBot, tooManyAttachments, fileTooSmall, fileTooLarge, fileTypeNotAllowed,
        ].map { ($0.name, $0) })
}

/// An error answered over REST as stoatchat's `Error`: `{"type": KIND, <the kind's fields>, "location": …}`
/// with the kind's status, or on the socket as `Error`'s `data`.
struct APIError: Error, Sendable {
    let kind: StoatErrorKind
    /// The kind's own fields (`permission`, `error`, `retry_after`, `max`), in order.
    var fields: [Wire.Field] = []
    /// Where stoatchat raises it (`crates/...:line:column` there; the rule's source file here).
    let location: String

    init(_ kind: StoatErrorKind, _ fields: [Wire.Field] = [], at location: String) {
        self.kind = kind
        self.fields = fields
        self.location = location
    }

    /// `MissingPermission` naming `permission`.
    static func missing(_ permission: StoatPermission, at location: String) -> APIError {
        APIError(.missingPermission, [.init(key: "permission", value: .string(permission.name))], at: location)
    }

    /// `FailedValidation` with stoatchat's `error` text.
    static func validation(_ error: String, at location: String) -> APIError {
        APIError(.failedValidation, [.init(key: "error", value: .string(error))], at: location)
    }

    var wire: Wire {
        .object(
            [.init(key: "type", value: .string(kind.name))] + fields + [
                .init(key: "location", value: .string(location))
            ])
    }
}
