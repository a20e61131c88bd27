public import LifelineCore

/// Why a call to Stoat's REST API failed: the server's refusal, a response the client cannot read, a
/// failure of the network, or a request the client refused to make.
///
/// Lifeline's one error shape (`CodedError`), like grpc-swift's `RPCError`: match on its code, not on the
/// message. A refusal's code is the server's error kind itself (`{"type": KIND, …}`), whether or not the
/// client names it with a static member: an unknown kind is kept verbatim as the code's raw value, with its
/// status. A `401` without a kind (the web framework's own answer to a missing or bad token) is
/// ``StoatAPIErrorCode/invalidSession``, a `409` without a kind (its answer to a reused `Idempotency-Key`)
/// ``StoatAPIErrorCode/duplicateNonce``. The extra fields a kind carries are kept in its details
/// (``StoatAPIErrorDetails``), read as the error's own properties: `retryAfter` (`InSlowmode`, and the rate
/// limiter's `retry_after`), `limit` (`max`) and `detail` (`permission`, `error`, `with`, `feature`). See
/// <doc:LifelineStoat#Errors>.
///
/// The `description` never contains a token, a password, an MFA code or a response body, so an error
/// can be logged or shown as it is.
public typealias StoatAPIError = CodedError<StoatAPIErrorCode>

/// What kind of failure a ``StoatAPIError`` is.
public struct StoatAPIErrorCode: LifelineErrorCode, RawRepresentable {
    /// What a ``StoatAPIError`` carries beside its code, message and cause.
    public typealias Details = StoatAPIErrorDetails

    /// The code's stable name: Stoat's error kind for the server's refusals (`InvalidCredentials`), a
    /// lower-camel-case name for the client's own (`network`).
    public var rawValue: String

    /// Creates a code from its stable name.
    public init(rawValue: String) { self.rawValue = rawValue }

    // MARK: The server's refusals, named as stoatchat's `ErrorType` names them, with their status.

    /// The server failed with an error it did not label (500 `LabelMe`).
    public static let labelMe = StoatAPIErrorCode(rawValue: "LabelMe")
    /// The user has already picked a username (403 `AlreadyOnboarded`).
    public static let alreadyOnboarded = StoatAPIErrorCode(rawValue: "AlreadyOnboarded")
    /// The username is in use (every discriminator of it is taken) (409 `UsernameTaken`).
    public static let usernameTaken = StoatAPIErrorCode(rawValue: "UsernameTaken")
    /// The username is not allowed (a blocked or reserved name) (400 `InvalidUsername`).
    public static let invalidUsername = StoatAPIErrorCode(rawValue: "InvalidUsername")
    /// The discriminator was changed too recently (429 `DiscriminatorChangeRatelimited`).
    public static let discriminatorChangeRatelimited = StoatAPIErrorCode(rawValue: "DiscriminatorChangeRatelimited")
    /// No such user (404 `UnknownUser`).
    public static let unknownUser = StoatAPIErrorCode(rawValue: "UnknownUser")
    /// The users are already friends (409 `AlreadyFriends`).
    public static let alreadyFriends = StoatAPIErrorCode(rawValue: "AlreadyFriends")
    /// A friend request is already pending (409 `AlreadySentRequest`).
    public static let alreadySentRequest = StoatAPIErrorCode(rawValue: "AlreadySentRequest")
    /// The current user blocked the other user (409 `Blocked`).
    public static let blocked = StoatAPIErrorCode(rawValue: "Blocked")
    /// The other user blocked the current user (403 `BlockedByOther`).
    public static let blockedByOther = StoatAPIErrorCode(rawValue: "BlockedByOther")
    /// The users are not friends (403 `NotFriends`).
    public static let notFriends = StoatAPIErrorCode(rawValue: "NotFriends")
    /// Too many friend requests are pending; ``StoatAPIErrorDetails/limit`` is the maximum (400 `TooManyPendingFriendRequests`).
    public static let tooManyPendingFriendRequests = StoatAPIErrorCode(rawValue: "TooManyPendingFriendRequests")
    /// No such channel, or the user cannot see it (404 `UnknownChannel`).
    public static let unknownChannel = StoatAPIErrorCode(rawValue: "UnknownChannel")
    /// An attachment id is unknown (400 `UnknownAttachment`).
    public static let unknownAttachment = StoatAPIErrorCode(rawValue: "UnknownAttachment")
    /// No such message (404 `UnknownMessage`).
    public static let unknownMessage = StoatAPIErrorCode(rawValue: "UnknownMessage")
    /// The message cannot be deleted (403 `CannotDeleteMessage`).
    public static let cannotDeleteMessage = StoatAPIErrorCode(rawValue: "CannotDeleteMessage")
    /// The message cannot be edited (403 `CannotEditMessage`).
    public static let cannotEditMessage = StoatAPIErrorCode(rawValue: "CannotEditMessage")
    /// The call cannot be joined (400 `CannotJoinCall`).
    public static let cannotJoinCall = StoatAPIErrorCode(rawValue: "CannotJoinCall")
    /// Too many attachments; ``StoatAPIErrorDetails/limit`` is the maximum (400 `TooManyAttachments`).
    public static let tooManyAttachments = StoatAPIErrorCode(rawValue: "TooManyAttachments")
    /// Too many embeds; ``StoatAPIErrorDetails/limit`` is the maximum (400 `TooManyEmbeds`).
    public static let tooManyEmbeds = StoatAPIErrorCode(rawValue: "TooManyEmbeds")
    /// Too many replies; ``StoatAPIErrorDetails/limit`` is the maximum (400 `TooManyReplies`).
    public static let tooManyReplies = StoatAPIErrorCode(rawValue: "TooManyReplies")
    /// Too many channels; ``StoatAPIErrorDetails/limit`` is the maximum (400 `TooManyChannels`).
    public static let tooManyChannels = StoatAPIErrorCode(rawValue: "TooManyChannels")
    /// The message has no content, attachment or embed (422 `EmptyMessage`).
    public static let emptyMessage = StoatAPIErrorCode(rawValue: "EmptyMessage")
    /// The message is too long (422 `PayloadTooLarge`).
    public static let payloadTooLarge = StoatAPIErrorCode(rawValue: "PayloadTooLarge")
    /// A user cannot remove themselves this way (400 `CannotRemoveYourself`).
    public static let cannotRemoveYourself = StoatAPIErrorCode(rawValue: "CannotRemoveYourself")
    /// The group is full; ``StoatAPIErrorDetails/limit`` is the maximum (403 `GroupTooLarge`).
    public static let groupTooLarge = StoatAPIErrorCode(rawValue: "GroupTooLarge")
    /// The user is already in the group (409 `AlreadyInGroup`).
    public static let alreadyInGroup = StoatAPIErrorCode(rawValue: "AlreadyInGroup")
    /// The user is not in the group (404 `NotInGroup`).
    public static let notInGroup = StoatAPIErrorCode(rawValue: "NotInGroup")
    /// The message is already pinned (400 `AlreadyPinned`).
    public static let alreadyPinned = StoatAPIErrorCode(rawValue: "AlreadyPinned")
    /// The message is not pinned (400 `NotPinned`).
    public static let notPinned = StoatAPIErrorCode(rawValue: "NotPinned")
    /// The channel's slowmode holds the user back; ``StoatAPIErrorDetails/retryAfter`` says for how long (429 `InSlowmode`).
    public static let inSlowmode = StoatAPIErrorCode(rawValue: "InSlowmode")
    /// The user may not create servers (403 `CantCreateServers`).
    public static let cantCreateServers = StoatAPIErrorCode(rawValue: "CantCreateServers")
    /// No such server, or the user is not a member (404 `UnknownServer`).
    public static let unknownServer = StoatAPIErrorCode(rawValue: "UnknownServer")
    /// No such role (404 `InvalidRole`).
    public static let invalidRole = StoatAPIErrorCode(rawValue: "InvalidRole")
    /// The user is banned from the server (403 `Banned`).
    public static let banned = StoatAPIErrorCode(rawValue: "Banned")
    /// The user is in too many servers; ``StoatAPIErrorDetails/limit`` is the maximum (400 `TooManyServers`).
    public static let tooManyServers = StoatAPIErrorCode(rawValue: "TooManyServers")
    /// The server has too many emoji; ``StoatAPIErrorDetails/limit`` is the maximum (400 `TooManyEmoji`).
    public static let tooManyEmoji = StoatAPIErrorCode(rawValue: "TooManyEmoji")
    /// The server has too many roles; ``StoatAPIErrorDetails/limit`` is the maximum (400 `TooManyRoles`).
    public static let tooManyRoles = StoatAPIErrorCode(rawValue: "TooManyRoles")
    /// The user is already a member (409 `AlreadyInServer`).
    public static let alreadyInServer = StoatAPIErrorCode(rawValue: "AlreadyInServer")
    /// A member cannot time themselves out (400 `CannotTimeoutYourself`).
    public static let cannotTimeoutYourself = StoatAPIErrorCode(rawValue: "CannotTimeoutYourself")
    /// The user owns as many bots as allowed (400 `ReachedMaximumBots`).
    public static let reachedMaximumBots = StoatAPIErrorCode(rawValue: "ReachedMaximumBots")
    /// The user is a bot, and bots may not do this (400 `IsBot`).
    public static let isBot = StoatAPIErrorCode(rawValue: "IsBot")
    /// Only bots may do this (400 `IsNotBot`).
    public static let isNotBot = StoatAPIErrorCode(rawValue: "IsNotBot")
    /// The bot is private (403 `BotIsPrivate`).
    public static let botIsPrivate = StoatAPIErrorCode(rawValue: "BotIsPrivate")
    /// A user cannot report themselves (400 `CannotReportYourself`).
    public static let cannotReportYourself = StoatAPIErrorCode(rawValue: "CannotReportYourself")
    /// A permission in the channel or server is missing; ``StoatAPIErrorDetails/detail`` names it (403 `MissingPermission`).
    public static let missingPermission = StoatAPIErrorCode(rawValue: "MissingPermission")
    /// A permission towards the user is missing; ``StoatAPIErrorDetails/detail`` names it (403 `MissingUserPermission`).
    public static let missingUserPermission = StoatAPIErrorCode(rawValue: "MissingUserPermission")
    /// The session is not elevated (403 `NotElevated`).
    public static let notElevated = StoatAPIErrorCode(rawValue: "NotElevated")
    /// The user is not a platform administrator (403 `NotPrivileged`).
    public static let notPrivileged = StoatAPIErrorCode(rawValue: "NotPrivileged")
    /// A permission the user does not have cannot be given (403 `CannotGiveMissingPermissions`).
    public static let cannotGiveMissingPermissions = StoatAPIErrorCode(rawValue: "CannotGiveMissingPermissions")
    /// Only the owner may do this (403 `NotOwner`).
    public static let notOwner = StoatAPIErrorCode(rawValue: "NotOwner")
    /// The session is elevated, and this needs it not to be (403 `IsElevated`).
    public static let isElevated = StoatAPIErrorCode(rawValue: "IsElevated")
    /// The server's database failed; ``StoatAPIErrorDetails/detail`` names the operation (500 `DatabaseError`).
    public static let databaseError = StoatAPIErrorCode(rawValue: "DatabaseError")
    /// The server failed (500 `InternalError`).
    public static let internalError = StoatAPIErrorCode(rawValue: "InternalError")
    /// The request is not valid in this state (400 `InvalidOperation`).
    public static let invalidOperation = StoatAPIErrorCode(rawValue: "InvalidOperation")
    /// The email and password do not match (401 `InvalidCredentials`).
    public static let invalidCredentials = StoatAPIErrorCode(rawValue: "InvalidCredentials")
    /// A property of the request is invalid (400 `InvalidProperty`).
    public static let invalidProperty = StoatAPIErrorCode(rawValue: "InvalidProperty")
    /// The session is no longer valid, or no session was given (a 401 without a kind too) (401 `InvalidSession`).
    public static let invalidSession = StoatAPIErrorCode(rawValue: "InvalidSession")
    /// A flag value is invalid (400 `InvalidFlagValue`).
    public static let invalidFlagValue = StoatAPIErrorCode(rawValue: "InvalidFlagValue")
    /// The call needs a session and none was given (401 `NotAuthenticated`).
    public static let notAuthenticated = StoatAPIErrorCode(rawValue: "NotAuthenticated")
    /// The `Idempotency-Key` is in the server's cache (409): a post with it was made before, stored or
    /// refused. stoatchat's guard raises `DuplicateNonce`, but Rocket's default catcher answers it — `409
    /// {"error":{"code":409,"reason":"Conflict",…}}` with no kind — so a `409` without a kind is this code. It
    /// does not say whether the message exists: look it up.
    public static let duplicateNonce = StoatAPIErrorCode(rawValue: "DuplicateNonce")
    /// The thing asked for does not exist (404 `NotFound`).
    public static let notFound = StoatAPIErrorCode(rawValue: "NotFound")
    /// The request would change nothing (400 `NoEffect`).
    public static let noEffect = StoatAPIErrorCode(rawValue: "NoEffect")
    /// The request was refused as invalid; ``StoatAPIErrorDetails/detail`` says why (400 `FailedValidation`).
    public static let failedValidation = StoatAPIErrorCode(rawValue: "FailedValidation")
    /// A header is too large (400 `HeaderTooLarge`).
    public static let headerTooLarge = StoatAPIErrorCode(rawValue: "HeaderTooLarge")
    /// The server could not complete the operation (500 `OperationFailed`).
    public static let operationFailed = StoatAPIErrorCode(rawValue: "OperationFailed")
    /// The data is incorrect; ``StoatAPIErrorDetails/detail`` says which (400 `IncorrectData`).
    public static let incorrectData = StoatAPIErrorCode(rawValue: "IncorrectData")
    /// Voice is not available (400 `LiveKitUnavailable`).
    public static let liveKitUnavailable = StoatAPIErrorCode(rawValue: "LiveKitUnavailable")
    /// The channel is not a voice channel (400 `NotAVoiceChannel`).
    public static let notAVoiceChannel = StoatAPIErrorCode(rawValue: "NotAVoiceChannel")
    /// The user is already connected to voice (400 `AlreadyConnected`).
    public static let alreadyConnected = StoatAPIErrorCode(rawValue: "AlreadyConnected")
    /// The user is not connected to voice (400 `NotConnected`).
    public static let notConnected = StoatAPIErrorCode(rawValue: "NotConnected")
    /// The voice node is unknown (400 `UnknownNode`).
    public static let unknownNode = StoatAPIErrorCode(rawValue: "UnknownNode")
    /// The link proxy failed (400 `ProxyError`).
    public static let proxyError = StoatAPIErrorCode(rawValue: "ProxyError")
    /// The file is too small (422 `FileTooSmall`).
    public static let fileTooSmall = StoatAPIErrorCode(rawValue: "FileTooSmall")
    /// The file is too large; ``StoatAPIErrorDetails/limit`` is the maximum (422 `FileTooLarge`).
    public static let fileTooLarge = StoatAPIErrorCode(rawValue: "FileTooLarge")
    /// The file's type is not allowed (400 `FileTypeNotAllowed`).
    public static let fileTypeNotAllowed = StoatAPIErrorCode(rawValue: "FileTypeNotAllowed")
    /// The image could not be processed (500 `ImageProcessingFailed`).
    public static let imageProcessingFailed = StoatAPIErrorCode(rawValue: "ImageProcessingFailed")
    /// The link has nothing to embed (400 `NoEmbedData`).
    public static let noEmbedData = StoatAPIErrorCode(rawValue: "NoEmbedData")
    /// The legacy voice server is unavailable (400 `VosoUnavailable`).
    public static let vosoUnavailable = StoatAPIErrorCode(rawValue: "VosoUnavailable")
    /// The feature is disabled on this server; ``StoatAPIErrorDetails/detail`` names it (400 `FeatureDisabled`).
    public static let featureDisabled = StoatAPIErrorCode(rawValue: "FeatureDisabled")
    /// The server could not render a page (500 `RenderFail`).
    public static let renderFail = StoatAPIErrorCode(rawValue: "RenderFail")
    /// A required header is missing (400 `MissingHeaders`).
    public static let missingHeaders = StoatAPIErrorCode(rawValue: "MissingHeaders")
    /// The captcha was missing or wrong (400 `CaptchaFailed`).
    public static let captchaFailed = StoatAPIErrorCode(rawValue: "CaptchaFailed")
    /// Stoat's abuse shield refused the request; see `StoatAPIError.supportURL` (400 `BlockedByShield`).
    public static let blockedByShield = StoatAPIErrorCode(rawValue: "BlockedByShield")
    /// The account's email is not verified yet (403 `UnverifiedAccount`).
    public static let unverifiedAccount = StoatAPIErrorCode(rawValue: "UnverifiedAccount")
    /// The server could not send an email (500 `EmailFailed`).
    public static let emailFailed = StoatAPIErrorCode(rawValue: "EmailFailed")
    /// An MFA ticket or code, or another token, is wrong or expired (401 `InvalidToken`).
    public static let invalidToken = StoatAPIErrorCode(rawValue: "InvalidToken")
    /// Sign-up needs an invite (400 `MissingInvite`).
    public static let missingInvite = StoatAPIErrorCode(rawValue: "MissingInvite")
    /// The invite is invalid (400 `InvalidInvite`).
    public static let invalidInvite = StoatAPIErrorCode(rawValue: "InvalidInvite")
    /// The password appears in a breach list (400 `CompromisedPassword`).
    public static let compromisedPassword = StoatAPIErrorCode(rawValue: "CompromisedPassword")
    /// The password is too short (400 `ShortPassword`).
    public static let shortPassword = StoatAPIErrorCode(rawValue: "ShortPassword")
    /// The email address is not allowed; the user should contact support (the server's `Blacklisted`) (401 `DisallowedContactSupport`).
    public static let disallowedContactSupport = StoatAPIErrorCode(rawValue: "DisallowedContactSupport")
    /// Too many wrong passwords: the account is locked for a while (403 `LockedOut`).
    public static let lockedOut = StoatAPIErrorCode(rawValue: "LockedOut")
    /// TOTP is already enabled (400 `TotpAlreadyEnabled`).
    public static let totpAlreadyEnabled = StoatAPIErrorCode(rawValue: "TotpAlreadyEnabled")
    /// The MFA method is not one the challenge allows (400 `DisallowedMFAMethod`).
    public static let disallowedMFAMethod = StoatAPIErrorCode(rawValue: "DisallowedMFAMethod")

    // MARK: The client's own codes.

    /// The credentials were right but the account was disabled by its owner (a login answered `Disabled`).
    public static let accountDisabled = StoatAPIErrorCode(rawValue: "Disabled")
    /// The server's rate limiter refused the call (`429 {"retry_after": ms}`) and waiting for it did not
    /// fit the call's deadline; ``StoatAPIErrorDetails/retryAfter`` says how long to wait.
    public static let rateLimited = StoatAPIErrorCode(rawValue: "rateLimited")
    /// The server redirected to another origin (scheme, host or port) or from HTTPS to HTTP, and the
    /// client refused to follow: credentials never leave for another origin.
    public static let redirectRefused = StoatAPIErrorCode(rawValue: "redirectRefused")
    /// The session was issued by another server than the one the call or the socket goes to: its token is
    /// not sent. A session's token goes only to the API that issued it (`SessionCredentials/issuer`) and
    /// to the events socket that API's `GET /` names.
    public static let foreignCredentials = StoatAPIErrorCode(rawValue: "foreignCredentials")
    /// The events socket's URL from `GET /` is not one the client will open: an unknown scheme, or a
    /// plaintext socket for an API reached over HTTPS.
    public static let insecureEventsURL = StoatAPIErrorCode(rawValue: "insecureEventsURL")
    /// The file server's URL from `GET /` is not one the client will send a token to: not an `http` or
    /// `https` URL with a host, or plaintext for an API reached over HTTPS.
    public static let insecureFileServerURL = StoatAPIErrorCode(rawValue: "insecureFileServerURL")
    /// `GET /` names no file server (`features.autumn` is off): nothing can be uploaded.
    public static let fileServerUnavailable = StoatAPIErrorCode(rawValue: "fileServerUnavailable")
    /// The server answered a status the call does not expect, with no error kind; a `401` without a kind
    /// is ``invalidSession`` instead.
    public static let unexpectedStatus = StoatAPIErrorCode(rawValue: "unexpectedStatus")
    /// The server answered a success the client cannot read: not JSON, a missing field, too large.
    public static let malformedResponse = StoatAPIErrorCode(rawValue: "malformedResponse")
    /// The request did not reach the server or its answer did not come back (refused, unreachable,
    /// reset, a TLS failure other than the certificate's).
    public static let network = StoatAPIErrorCode(rawValue: "network")
    /// The server's certificate is not issued by an authority the client trusts (self-signed, or a private
    /// authority not in the trust roots: see ``StoatClient/Configuration/tls``).
    public static let certificateUntrusted = StoatAPIErrorCode(rawValue: "certificateUntrusted")
    /// The server's certificate is for another name than the host the client connected to.
    public static let certificateNameMismatch = StoatAPIErrorCode(rawValue: "certificateNameMismatch")
    /// The server's certificate (or one of its chain) has expired, or is not valid yet.
    public static let certificateExpired = StoatAPIErrorCode(rawValue: "certificateExpired")
    /// No answer arrived within the request timeout.
    public static let timeout = StoatAPIErrorCode(rawValue: "timeout")
    /// The calling task was cancelled.
    public static let cancelled = StoatAPIErrorCode(rawValue: "cancelled")
    /// The request could not be made: for example a URL that is not HTTP.
    public static let invalidRequest = StoatAPIErrorCode(rawValue: "invalidRequest")

    /// The error kinds stoatchat defines, with the HTTP status it answers each with.
    static let serverKinds: [(code: StoatAPIErrorCode, status: Int)] = [
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

/// What a ``StoatAPIError`` carries beside its code, message and cause, each read and written as a property of
/// the error itself (`error.status`, `error.retryAfter`).
public struct StoatAPIErrorDetails: Sendable, Hashable {
    /// The server's error kind (`type`), when the response carried one.
    public var kind: String?
    /// The server's error `location`, when the response carried one.
    public var location: String?
    /// The HTTP status, when a response arrived.
    public var status: Int?
    /// How long to wait before trying again: a rate limit's `retry_after` (milliseconds on the wire) for
    /// ``StoatAPIErrorCode/rateLimited``, the slowmode's `retry_after` (seconds on the wire) for
    /// ``StoatAPIErrorCode/inSlowmode``.
    public var retryAfter: Duration?
    /// The limit a `TooMany…`, `GroupTooLarge` or `FileTooLarge` refusal names (`max`).
    public var limit: Int?
    /// What a refusal names: the missing permission (`permission`), why validation failed (`error`), the
    /// incorrect data (`with`), the disabled feature (`feature`), the failed database operation — or, from a
    /// server that explains its errors so (Stoat's new events server), the body's own `detail`.
    public var detail: String?
    /// For ``StoatAPIErrorCode/accountDisabled``: why the account cannot log in, from its flags
    /// (``StoatAPI/disabledLogin(userID:)``): `AccountStanding.disabled` for flags 0 (its owner disabled
    /// it), else suspended, banned, deleted or removed as spam; `nil` when the flags could not be read.
    public var standing: AccountStanding?
}

extension CodedError where Code == StoatAPIErrorCode {
    /// The support article Stoat asks clients to link to when its shield blocks a user.
    public static var blockedByShieldSupportURL: String { "https://support.stoat.chat/kb/safety/blocked-for-spam" }

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
    ///   - cause: The error that caused this one (a transport or decoding error), if any.
    public init(
        code: Code, message: String, kind: String? = nil, location: String? = nil, status: Int? = nil,
        retryAfter: Duration? = nil, limit: Int? = nil, detail: String? = nil, cause: (any Error)? = nil
    ) {
        self.init(
            code: code, message: message,
            details: StoatAPIErrorDetails(
                kind: kind, location: location, status: status, retryAfter: retryAfter, limit: limit, detail: detail),
            cause: cause)
    }

    /// The refusal a login answered `Disabled` stands for, before the account's flags say why.
    ///
    /// - Parameter userID: The account's user id, from the login's answer.
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
        error.details.standing = standing
        if let standing { error.message = "The account cannot log in: \(standing.rawValue)." }
        return error
    }

    /// The support article to link to: Stoat's "blocked for spam" article for
    /// ``StoatAPIErrorCode/blockedByShield``, otherwise `nil`.
    public var supportURL: String? {
        code == .blockedByShield ? Self.blockedByShieldSupportURL : nil
    }

    /// Whether the failure happened on the way to or from the server (``StoatAPIErrorCode/network`` or
    /// ``StoatAPIErrorCode/timeout``): the request may succeed if tried again.
    public var isTransportFailure: Bool { code == .network || code == .timeout }

    /// Whether the server no longer accepts the session: ``StoatAPIErrorCode/invalidSession`` (a `401`
    /// without a kind included) or ``StoatAPIErrorCode/notAuthenticated``.
    public var isInvalidSession: Bool { code == .invalidSession || code == .notAuthenticated }

    /// The failure as the login interface shows it, for `Session.reportLoginFailure(_:)`: Stoat's error
    /// kind as the code, a sentence for the user, and the support link for
    /// ``StoatAPIErrorCode/blockedByShield``. A login refused as `Disabled` carries the account's standing,
    /// once its flags were read.
    public var loginFailure: LoginFailure {
        LoginFailure(
            code: LoginFailure.Code(rawValue: details.kind ?? code.rawValue), message: userMessage,
            supportURL: supportURL, standing: details.standing)
    }
    /// A sentence for the user of a login or onboarding form.
    package var userMessage: String {
        switch code {
        case .accountDisabled:
            details.standing?.message
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
