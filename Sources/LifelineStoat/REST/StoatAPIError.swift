public import LifelineCore

/// Why a call to Stoat's REST API failed: the server's refusal, a response the client cannot read, a
/// failure of the network, or a request the client refused to make.
///
/// One error shape, like grpc-swift's `RPCError`: match on ``code``, not on the message. A refusal's code is
/// the server's error kind itself (`{"type": KIND, …}`), whether or not the client names it with a static
/// member: an unknown kind is kept verbatim as the code's raw value, with its status. A `401` without a kind
/// (the web framework's own answer to a missing or bad token) is ``Code/invalidSession``, a `409` without a kind
/// (its answer to a reused `Idempotency-Key`) ``Code/duplicateNonce``. The extra fields a
/// kind carries are kept: ``retryAfter`` (`InSlowmode`, and the rate limiter's `retry_after`), ``limit``
/// (`max`) and ``detail`` (`permission`, `error`, `with`, `feature`). See <doc:LifelineStoat#Errors>.
///
/// The `description` never contains a token, a password, an MFA code or a response body, so an error
/// can be logged or shown as it is.
public struct StoatAPIError: LifelineError, Sendable {
    /// What kind of failure this is.
    public struct Code: LifelineErrorCode, RawRepresentable {
        /// The code's stable name: Stoat's error kind for the server's refusals (`InvalidCredentials`), a
        /// lower-camel-case name for the client's own (`network`).
        public var rawValue: String

        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        // MARK: The server's refusals, named as stoatchat's `ErrorType` names them, with their status.

        /// The server failed with an error it did not label (500 `LabelMe`).
        public static let labelMe = Code(rawValue: "LabelMe")
        /// The user has already picked a username (403 `AlreadyOnboarded`).
        public static let alreadyOnboarded = Code(rawValue: "AlreadyOnboarded")
        /// The username is in use (every discriminator of it is taken) (409 `UsernameTaken`).
        public static let usernameTaken = Code(rawValue: "UsernameTaken")
        /// The username is not allowed (a blocked or reserved name) (400 `InvalidUsername`).
        public static let invalidUsername = Code(rawValue: "InvalidUsername")
        /// The discriminator was changed too recently (429 `DiscriminatorChangeRatelimited`).
        public static let discriminatorChangeRatelimited = Code(rawValue: "DiscriminatorChangeRatelimited")
        /// No such user (404 `UnknownUser`).
        public static let unknownUser = Code(rawValue: "UnknownUser")
        /// The users are already friends (409 `AlreadyFriends`).
        public static let alreadyFriends = Code(rawValue: "AlreadyFriends")
        /// A friend request is already pending (409 `AlreadySentRequest`).
        public static let alreadySentRequest = Code(rawValue: "AlreadySentRequest")
        /// The current user blocked the other user (409 `Blocked`).
        public static let blocked = Code(rawValue: "Blocked")
        /// The other user blocked the current user (403 `BlockedByOther`).
        public static let blockedByOther = Code(rawValue: "BlockedByOther")
        /// The users are not friends (403 `NotFriends`).
        public static let notFriends = Code(rawValue: "NotFriends")
        /// Too many friend requests are pending; ``StoatAPIError/limit`` is the maximum (400 `TooManyPendingFriendRequests`).
        public static let tooManyPendingFriendRequests = Code(rawValue: "TooManyPendingFriendRequests")
        /// No such channel, or the user cannot see it (404 `UnknownChannel`).
        public static let unknownChannel = Code(rawValue: "UnknownChannel")
        /// An attachment id is unknown (400 `UnknownAttachment`).
        public static let unknownAttachment = Code(rawValue: "UnknownAttachment")
        /// No such message (404 `UnknownMessage`).
        public static let unknownMessage = Code(rawValue: "UnknownMessage")
        /// The message cannot be deleted (403 `CannotDeleteMessage`).
        public static let cannotDeleteMessage = Code(rawValue: "CannotDeleteMessage")
        /// The message cannot be edited (403 `CannotEditMessage`).
        public static let cannotEditMessage = Code(rawValue: "CannotEditMessage")
        /// The call cannot be joined (400 `CannotJoinCall`).
        public static let cannotJoinCall = Code(rawValue: "CannotJoinCall")
        /// Too many attachments; ``StoatAPIError/limit`` is the maximum (400 `TooManyAttachments`).
        public static let tooManyAttachments = Code(rawValue: "TooManyAttachments")
        /// Too many embeds; ``StoatAPIError/limit`` is the maximum (400 `TooManyEmbeds`).
        public static let tooManyEmbeds = Code(rawValue: "TooManyEmbeds")
        /// Too many replies; ``StoatAPIError/limit`` is the maximum (400 `TooManyReplies`).
        public static let tooManyReplies = Code(rawValue: "TooManyReplies")
        /// Too many channels; ``StoatAPIError/limit`` is the maximum (400 `TooManyChannels`).
        public static let tooManyChannels = Code(rawValue: "TooManyChannels")
        /// The message has no content, attachment or embed (422 `EmptyMessage`).
        public static let emptyMessage = Code(rawValue: "EmptyMessage")
        /// The message is too long (422 `PayloadTooLarge`).
        public static let payloadTooLarge = Code(rawValue: "PayloadTooLarge")
        /// A user cannot remove themselves this way (400 `CannotRemoveYourself`).
        public static let cannotRemoveYourself = Code(rawValue: "CannotRemoveYourself")
        /// The group is full; ``StoatAPIError/limit`` is the maximum (403 `GroupTooLarge`).
        public static let groupTooLarge = Code(rawValue: "GroupTooLarge")
        /// The user is already in the group (409 `AlreadyInGroup`).
        public static let alreadyInGroup = Code(rawValue: "AlreadyInGroup")
        /// The user is not in the group (404 `NotInGroup`).
        public static let notInGroup = Code(rawValue: "NotInGroup")
        /// The message is already pinned (400 `AlreadyPinned`).
        public static let alreadyPinned = Code(rawValue: "AlreadyPinned")
        /// The message is not pinned (400 `NotPinned`).
        public static let notPinned = Code(rawValue: "NotPinned")
        /// The channel's slowmode holds the user back; ``StoatAPIError/retryAfter`` says for how long (429 `InSlowmode`).
        public static let inSlowmode = Code(rawValue: "InSlowmode")
        /// The user may not create servers (403 `CantCreateServers`).
        public static let cantCreateServers = Code(rawValue: "CantCreateServers")
        /// No such server, or the user is not a member (404 `UnknownServer`).
        public static let unknownServer = Code(rawValue: "UnknownServer")
        /// No such role (404 `InvalidRole`).
        public static let invalidRole = Code(rawValue: "InvalidRole")
        /// The user is banned from the server (403 `Banned`).
        public static let banned = Code(rawValue: "Banned")
        /// The user is in too many servers; ``StoatAPIError/limit`` is the maximum (400 `TooManyServers`).
        public static let tooManyServers = Code(rawValue: "TooManyServers")
        /// The server has too many emoji; ``StoatAPIError/limit`` is the maximum (400 `TooManyEmoji`).
        public static let tooManyEmoji = Code(rawValue: "TooManyEmoji")
        /// The server has too many roles; ``StoatAPIError/limit`` is the maximum (400 `TooManyRoles`).
        public static let tooManyRoles = Code(rawValue: "TooManyRoles")
        /// The user is already a member (409 `AlreadyInServer`).
        public static let alreadyInServer = Code(rawValue: "AlreadyInServer")
        /// A member cannot time themselves out (400 `CannotTimeoutYourself`).
        public static let cannotTimeoutYourself = Code(rawValue: "CannotTimeoutYourself")
        /// The user owns as many bots as allowed (400 `ReachedMaximumBots`).
        public static let reachedMaximumBots = Code(rawValue: "ReachedMaximumBots")
        /// The user is a bot, and bots may not do this (400 `IsBot`).
        public static let isBot = Code(rawValue: "IsBot")
        /// Only bots may do this (400 `IsNotBot`).
        public static let isNotBot = Code(rawValue: "IsNotBot")
        /// The bot is private (403 `BotIsPrivate`).
        public static let botIsPrivate = Code(rawValue: "BotIsPrivate")
        /// A user cannot report themselves (400 `CannotReportYourself`).
        public static let cannotReportYourself = Code(rawValue: "CannotReportYourself")
        /// A permission in the channel or server is missing; ``StoatAPIError/detail`` names it (403 `MissingPermission`).
        public static let missingPermission = Code(rawValue: "MissingPermission")
        /// A permission towards the user is missing; ``StoatAPIError/detail`` names it (403 `MissingUserPermission`).
        public static let missingUserPermission = Code(rawValue: "MissingUserPermission")
        /// The session is not elevated (403 `NotElevated`).
        public static let notElevated = Code(rawValue: "NotElevated")
        /// The user is not a platform administrator (403 `NotPrivileged`).
        public static let notPrivileged = Code(rawValue: "NotPrivileged")
        /// A permission the user does not have cannot be given (403 `CannotGiveMissingPermissions`).
        public static let cannotGiveMissingPermissions = Code(rawValue: "CannotGiveMissingPermissions")
        /// Only the owner may do this (403 `NotOwner`).
        public static let notOwner = Code(rawValue: "NotOwner")
        /// The session is elevated, and this needs it not to be (403 `IsElevated`).
        public static let isElevated = Code(rawValue: "IsElevated")
        /// The server's database failed; ``StoatAPIError/detail`` names the operation (500 `DatabaseError`).
        public static let databaseError = Code(rawValue: "DatabaseError")
        /// The server failed (500 `InternalError`).
        public static let internalError = Code(rawValue: "InternalError")
        /// The request is not valid in this state (400 `InvalidOperation`).
        public static let invalidOperation = Code(rawValue: "InvalidOperation")
        /// The email and password do not match (401 `InvalidCredentials`).
        public static let invalidCredentials = Code(rawValue: "InvalidCredentials")
        /// A property of the request is invalid (400 `InvalidProperty`).
        public static let invalidProperty = Code(rawValue: "InvalidProperty")
        /// The session is no longer valid, or no session was given (a 401 without a kind too) (401 `InvalidSession`).
        public static let invalidSession = Code(rawValue: "InvalidSession")
        /// A flag value is invalid (400 `InvalidFlagValue`).
        public static let invalidFlagValue = Code(rawValue: "InvalidFlagValue")
        /// The call needs a session and none was given (401 `NotAuthenticated`).
        public static let notAuthenticated = Code(rawValue: "NotAuthenticated")
        /// The `Idempotency-Key` is in the server's cache (409): a post with it was made before, stored or
        /// refused. stoatchat's guard raises `DuplicateNonce`, but Rocket's default catcher answers it — `409
        /// {"error":{"code":409,"reason":"Conflict",…}}` with no kind — so a `409` without a kind is this code. It
        /// does not say whether the message exists: look it up.
        public static let duplicateNonce = Code(rawValue: "DuplicateNonce")
        /// The thing asked for does not exist (404 `NotFound`).
        public static let notFound = Code(rawValue: "NotFound")
        /// The request would change nothing (400 `NoEffect`).
        public static let noEffect = Code(rawValue: "NoEffect")
        /// The request was refused as invalid; ``StoatAPIError/detail`` says why (400 `FailedValidation`).
        public static let failedValidation = Code(rawValue: "FailedValidation")
        /// A header is too large (400 `HeaderTooLarge`).
        public static let headerTooLarge = Code(rawValue: "HeaderTooLarge")
        /// The server could not complete the operation (500 `OperationFailed`).
        public static let operationFailed = Code(rawValue: "OperationFailed")
        /// The data is incorrect; ``StoatAPIError/detail`` says which (400 `IncorrectData`).
        public static let incorrectData = Code(rawValue: "IncorrectData")
        /// Voice is not available (400 `LiveKitUnavailable`).
        public static let liveKitUnavailable = Code(rawValue: "LiveKitUnavailable")
        /// The channel is not a voice channel (400 `NotAVoiceChannel`).
        public static let notAVoiceChannel = Code(rawValue: "NotAVoiceChannel")
        /// The user is already connected to voice (400 `AlreadyConnected`).
        public static let alreadyConnected = Code(rawValue: "AlreadyConnected")
        /// The user is not connected to voice (400 `NotConnected`).
        public static let notConnected = Code(rawValue: "NotConnected")
        /// The voice node is unknown (400 `UnknownNode`).
        public static let unknownNode = Code(rawValue: "UnknownNode")
        /// The link proxy failed (400 `ProxyError`).
        public static let proxyError = Code(rawValue: "ProxyError")
        /// The file is too small (422 `FileTooSmall`).
        public static let fileTooSmall = Code(rawValue: "FileTooSmall")
        /// The file is too large; ``StoatAPIError/limit`` is the maximum (422 `FileTooLarge`).
        public static let fileTooLarge = Code(rawValue: "FileTooLarge")
        /// The file's type is not allowed (400 `FileTypeNotAllowed`).
        public static let fileTypeNotAllowed = Code(rawValue: "FileTypeNotAllowed")
        /// The image could not be processed (500 `ImageProcessingFailed`).
        public static let imageProcessingFailed = Code(rawValue: "ImageProcessingFailed")
        /// The link has nothing to embed (400 `NoEmbedData`).
        public static let noEmbedData = Code(rawValue: "NoEmbedData")
        /// The legacy voice server is unavailable (400 `VosoUnavailable`).
        public static let vosoUnavailable = Code(rawValue: "VosoUnavailable")
        /// The feature is disabled on this server; ``StoatAPIError/detail`` names it (400 `FeatureDisabled`).
        public static let featureDisabled = Code(rawValue: "FeatureDisabled")
        /// The server could not render a page (500 `RenderFail`).
        public static let renderFail = Code(rawValue: "RenderFail")
        /// A required header is missing (400 `MissingHeaders`).
        public static let missingHeaders = Code(rawValue: "MissingHeaders")
        /// The captcha was missing or wrong (400 `CaptchaFailed`).
        public static let captchaFailed = Code(rawValue: "CaptchaFailed")
        /// Stoat's abuse shield refused the request; see ``StoatAPIError/supportURL`` (400 `BlockedByShield`).
        public static let blockedByShield = Code(rawValue: "BlockedByShield")
        /// The account's email is not verified yet (403 `UnverifiedAccount`).
        public static let unverifiedAccount = Code(rawValue: "UnverifiedAccount")
        /// The server could not send an email (500 `EmailFailed`).
        public static let emailFailed = Code(rawValue: "EmailFailed")
        /// An MFA ticket or code, or another token, is wrong or expired (401 `InvalidToken`).
        public static let invalidToken = Code(rawValue: "InvalidToken")
        /// Sign-up needs an invite (400 `MissingInvite`).
        public static let missingInvite = Code(rawValue: "MissingInvite")
        /// The invite is invalid (400 `InvalidInvite`).
        public static let invalidInvite = Code(rawValue: "InvalidInvite")
        /// The password appears in a breach list (400 `CompromisedPassword`).
        public static let compromisedPassword = Code(rawValue: "CompromisedPassword")
        /// The password is too short (400 `ShortPassword`).
        public static let shortPassword = Code(rawValue: "ShortPassword")
        /// The email address is not allowed; the user should contact support (the server's `Blacklisted`) (401 `DisallowedContactSupport`).
        public static let disallowedContactSupport = Code(rawValue: "DisallowedContactSupport")
        /// Too many wrong passwords: the account is locked for a while (403 `LockedOut`).
        public static let lockedOut = Code(rawValue: "LockedOut")
        /// TOTP is already enabled (400 `TotpAlreadyEnabled`).
        public static let totpAlreadyEnabled = Code(rawValue: "TotpAlreadyEnabled")
        /// The MFA method is not one the challenge allows (400 `DisallowedMFAMethod`).
        public static let disallowedMFAMethod = Code(rawValue: "DisallowedMFAMethod")

        // MARK: The client's own codes.

        /// The credentials were right but the account was disabled by its owner (a login answered `Disabled`).
        public static let accountDisabled = Code(rawValue: "Disabled")
        /// The server's rate limiter refused the call (`429 {"retry_after": ms}`) and waiting for it did not
        /// fit the call's deadline; ``StoatAPIError/retryAfter`` says how long to wait.
        public static let rateLimited = Code(rawValue: "rateLimited")
        /// The server redirected to another origin (scheme, host or port) or from HTTPS to HTTP, and the
        /// client refused to follow: credentials never leave for another origin.
        public static let redirectRefused = Code(rawValue: "redirectRefused")
        /// The session was issued by another server than the one the call or the socket goes to: its token is
        /// not sent. A session's token goes only to the API that issued it (`SessionCredentials/issuer`) and
        /// to the events socket that API's `GET /` names.
        public static let foreignCredentials = Code(rawValue: "foreignCredentials")
        /// The events socket's URL from `GET /` is not one the client will open: an unknown scheme, or a
        /// plaintext socket for an API reached over HTTPS.
        public static let insecureEventsURL = Code(rawValue: "insecureEventsURL")
        /// The file server's URL from `GET /` is not one the client will send a token to: not an `http` or
        /// `https` URL with a host, or plaintext for an API reached over HTTPS.
        public static let insecureFileServerURL = Code(rawValue: "insecureFileServerURL")
        /// `GET /` names no file server (`features.autumn` is off): nothing can be uploaded.
        public static let fileServerUnavailable = Code(rawValue: "fileServerUnavailable")
        /// The server answered a status the call does not expect, with no error kind; a `401` without a kind
        /// is ``invalidSession`` instead.
        public static let unexpectedStatus = Code(rawValue: "unexpectedStatus")
        /// The server answered a success the client cannot read: not JSON, a missing field, too large.
        public static let malformedResponse = Code(rawValue: "malformedResponse")
        /// The request did not reach the server or its answer did not come back (refused, unreachable,
        /// reset, a TLS failure other than the certificate's).
        public static let network = Code(rawValue: "network")
        /// The server's certificate is not issued by an authority the client trusts (self-signed, or a private
        /// authority not in the trust roots: see ``StoatClient/Configuration/tls``).
        public static let certificateUntrusted = Code(rawValue: "certificateUntrusted")
        /// The server's certificate is for another name than the host the client connected to.
        public static let certificateNameMismatch = Code(rawValue: "certificateNameMismatch")
        /// The server's certificate (or one of its chain) has expired, or is not valid yet.
        public static let certificateExpired = Code(rawValue: "certificateExpired")
        /// No answer arrived within the request timeout.
        public static let timeout = Code(rawValue: "timeout")
        /// The calling task was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The request could not be made: for example a URL that is not HTTP.
        public static let invalidRequest = Code(rawValue: "invalidRequest")

        /// The error kinds stoatchat defines, with the HTTP status it answers each with.
        static let serverKinds: [(code: Code, status: Int)] = [
            (labelMe, 500),
            (alreadyOnboarded, 403),
            (usernameTaken, 409),
            (invalidUsername, 400),
            (discriminatorChangeRatelimited, 429),
            (unknownUser, 404),
            (alreadyFriends, 409),
            (alreadySentRequest, 409),
            (blocked, 409),
            (blockedByOther, 403),
            (notFriends, 403),
            (tooManyPendingFriendRequests, 400),
            (unknownChannel, 404),
            (unknownAttachment, 400),
            (unknownMessage, 404),
            (cannotDeleteMessage, 403),
            (cannotEditMessage, 403),
            (cannotJoinCall, 400),
            (tooManyAttachments, 400),
            (tooManyEmbeds, 400),
            (tooManyReplies, 400),
            (tooManyChannels, 400),
            (emptyMessage, 422),
            (payloadTooLarge, 422),
            (cannotRemoveYourself, 400),
            (groupTooLarge, 403),
            (alreadyInGroup, 409),
            (notInGroup, 404),
            (alreadyPinned, 400),
            (notPinned, 400),
            (inSlowmode, 429),
            (cantCreateServers, 403),
            (unknownServer, 404),
            (invalidRole, 404),
            (banned, 403),
            (tooManyServers, 400),
            (tooManyEmoji, 400),
            (tooManyRoles, 400),
            (alreadyInServer, 409),
            (cannotTimeoutYourself, 400),
            (reachedMaximumBots, 400),
            (isBot, 400),
            (isNotBot, 400),
            (botIsPrivate, 403),
            (cannotReportYourself, 400),
            (missingPermission, 403),
            (missingUserPermission, 403),
            (notElevated, 403),
            (notPrivileged, 403),
            (cannotGiveMissingPermissions, 403),
            (notOwner, 403),
            (isElevated, 403),
            (databaseError, 500),
            (internalError, 500),
            (invalidOperation, 400),
            (invalidCredentials, 401),
            (invalidProperty, 400),
            (invalidSession, 401),
            (invalidFlagValue, 400),
            (notAuthenticated, 401),
            (duplicateNonce, 409),
            (notFound, 404),
            (noEffect, 400),
            (failedValidation, 400),
            (headerTooLarge, 400),
            (operationFailed, 500),
            (incorrectData, 400),
            (liveKitUnavailable, 400),
            (notAVoiceChannel, 400),
            (alreadyConnected, 400),
            (notConnected, 400),
            (unknownNode, 400),
            (proxyError, 400),
            (fileTooSmall, 422),
            (fileTooLarge, 422),
            (fileTypeNotAllowed, 400),
            (imageProcessingFailed, 500),
            (noEmbedData, 400),
            (vosoUnavailable, 400),
            (featureDisabled, 400),
            (renderFail, 500),
            (missingHeaders, 400),
            (captchaFailed, 400),
            (blockedByShield, 400),
            (unverifiedAccount, 403),
            (emailFailed, 500),
            (invalidToken, 401),
            (missingInvite, 400),
            (invalidInvite, 400),
            (compromisedPassword, 400),
            (shortPassword, 400),
            (disallowedContactSupport, 401),
            (lockedOut, 403),
            (totpAlreadyEnabled, 400),
            (disallowedMFAMethod, 400),
        ]
    }

    /// The support article Stoat asks clients to link to when its shield blocks a user.
    public static let blockedByShieldSupportURL = "https://support.stoat.chat/kb/safety/blocked-for-spam"

    /// What kind of failure this is.
    public var code: Code
    /// A sentence for developers; never contains a secret or a response body.
    public var message: String
    /// The error that caused this one (a transport or decoding error), if any. Its own description is
    /// not part of `description`.
    public var cause: (any Error)?
    /// The server's error kind (`type`), when the response carried one.
    public var kind: String?
    /// The server's error `location`, when the response carried one.
    public var location: String?
    /// The HTTP status, when a response arrived.
    public var status: Int?
    /// How long to wait before trying again: a rate limit's `retry_after` (milliseconds on the wire) for
    /// ``Code/rateLimited``, the slowmode's `retry_after` (seconds on the wire) for ``Code/inSlowmode``.
    public var retryAfter: Duration?
    /// The limit a `TooMany…`, `GroupTooLarge` or `FileTooLarge` refusal names (`max`).
    public var limit: Int?
    /// What a refusal names: the missing permission (`permission`), why validation failed (`error`), the
    /// incorrect data (`with`), the disabled feature (`feature`), the failed database operation — or, from a
    /// server that explains its errors so (Stoat's new events server), the body's own `detail`.
    public var detail: String?
    /// For ``Code/accountDisabled``: why the account cannot log in, from its flags
    /// (``StoatAPI/disabledLogin(userID:)``): `AccountStanding.disabled` for flags 0 (its owner disabled
    /// it), else suspended, banned, deleted or removed as spam; `nil` when the flags could not be read.
    public var standing: AccountStanding?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: A sentence for developers; it must not contain a token or a password.
    ///   - kind: The server's error kind, if any.
    ///   - location: The server's error location, if any.
    ///   - status: The HTTP status, if a response arrived.
    ///   - retryAfter: How long to wait before trying again, if the server said.
    ///   - limit: The limit the refusal names, if any.
    ///   - detail: What the refusal names, if anything.
    ///   - cause: The error that caused this one, if any.
    public init(
        code: Code, message: String, kind: String? = nil, location: String? = nil, status: Int? = nil,
        retryAfter: Duration? = nil, limit: Int? = nil, detail: String? = nil, cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.cause = cause
        self.kind = kind
        self.location = location
        self.status = status
        self.retryAfter = retryAfter
        self.limit = limit
        self.detail = detail
    }

    /// The refusal a login answered `Disabled` stands for, before the account's flags say why.
    public static func disabled(userID: String) -> StoatAPIError {
        StoatAPIError(code: .accountDisabled, message: "The account cannot log in.", kind: "Disabled")
    }

    /// The refusal a login answered `Disabled` stands for, with the account's standing its flags gave
    /// (`nil` when they could not be read).
    ///
    /// - Parameters:
    ///   - userID: The account's user id, from the login's answer.
    ///   - standing: Why the account cannot log in, if known.
    public static func disabled(userID: String, standing: AccountStanding?) -> StoatAPIError {
        var error = disabled(userID: userID)
        error.standing = standing
        if let standing { error.message = "The account cannot log in: \(standing.rawValue)." }
        return error
    }

    /// The support article to link to: Stoat's "blocked for spam" article for ``Code/blockedByShield``,
    /// otherwise `nil`.
    public var supportURL: String? {
        code == .blockedByShield ? Self.blockedByShieldSupportURL : nil
    }

    /// Whether the failure happened on the way to or from the server (``Code/network`` or
    /// ``Code/timeout``): the request may succeed if tried again.
    public var isTransportFailure: Bool { code == .network || code == .timeout }

    /// Whether the server no longer accepts the session: ``Code/invalidSession`` (a `401` without a kind
    /// included) or ``Code/notAuthenticated``.
    public var isInvalidSession: Bool { code == .invalidSession || code == .notAuthenticated }

    /// The failure as the login interface shows it, for `Session.reportLoginFailure(_:)`: Stoat's error
    /// kind as the code, a sentence for the user, and the support link for ``Code/blockedByShield``.
    /// A login refused as `Disabled` carries the account's ``standing``, once its flags were read.
    public var loginFailure: LoginFailure {
        LoginFailure(
            code: LoginFailure.Code(rawValue: kind ?? code.rawValue), message: userMessage, supportURL: supportURL,
            standing: standing)
    }

    /// A sentence for the user of a login or onboarding form.
    package var userMessage: String {
        switch code {
        case .accountDisabled:
            standing?.message
                ?? "This account cannot log in: it is disabled, suspended or banned (its status could not be checked)."
        case .invalidCredentials: "The email or password is incorrect."
        case .lockedOut: "Too many failed attempts. Wait a while, then try again."
        case .unverifiedAccount: "Verify your email address before logging in."
        case .blockedByShield: "Your login was blocked to protect the platform from spam."
        case .compromisedPassword: "This password appeared in a data breach. Reset your password to continue."
        case .captchaFailed: "The captcha check failed. Try again."
        case .invalidToken: "The code is incorrect or has expired."
        case .disallowedMFAMethod: "This verification method is not available for this account."
        case .usernameTaken: "This username is taken."
        case .invalidUsername: "This username is not allowed."
        case .alreadyOnboarded: "This account already has a username."
        case .failedValidation: "The server refused the request as invalid."
        case .disallowedContactSupport: "This email address cannot be used. Contact support."
        case .invalidSession, .notAuthenticated: "Your session has ended. Log in again."
        case .foreignCredentials: "This session belongs to another server. Sign in to this one."
        case .rateLimited: "Too many attempts. Wait a moment, then try again."
        case .network, .timeout: "The server could not be reached. Check your connection and try again."
        default: "Something went wrong (\(code)). Try again later."
        }
    }
}

extension LoginFailure.Code {
    /// The code of a login refused with a ``StoatAPIError`` of code `code`: the same stable name (Stoat's error
    /// kind for the server's refusals), so `failure.code == .api(.invalidCredentials)`.
    ///
    /// - Parameter code: The API error's code.
    public static func api(_ code: StoatAPIError.Code) -> Self { Self(rawValue: code.rawValue) }
}
