/// A message in the account's outbox (``StoatClient/send(_:to:)-(OutgoingMessage,_)``), or an action on a message
/// (``StoatClient/edit(_:in:to:)``, ``StoatClient/delete(_:in:)``, ``StoatClient/react(to:in:with:)``,
/// ``StoatClient/unreact(to:in:with:)``), and where its delivery stands.
///
/// An action's ``kind`` is not ``Kind/send``: its ``target`` is the message it acts on, its ``emoji`` the reaction's
/// emoji, and an edit's new text is ``message``'s `content`. Its `sent` state carries the target's id: the server
/// applied it, or was found to have applied it already.
///
/// An entry is named by its ``nonce`` from the moment it is queued: the `Idempotency-Key` of its first post, and
/// the stem of every later key (`NONCE.2`, `NONCE.3`…), so the server's echo of any of them (a message's
/// `nonce`) identifies it. Its ``state`` moves `queued` → `sending` → `sent` (or `failed`), and back to `queued`
/// when a slowmode is waited out or the user resends a failed entry. See <doc:LifelineStoat#The-outbox>.
public struct OutboxEntry: Sendable, Hashable, Identifiable {
    /// Where a message's delivery stands.
    public enum State: Sendable, Hashable {
        /// Waiting to be posted: for the session to be CONNECTED, for the messages queued before it in its
        /// channel, or — with `retryAfter` — for the channel's slowmode to run out.
        case queued(retryAfter: Duration?)
        /// Posted, or being looked for on the server after an answer that did not say whether it was stored.
        case sending
        /// The server has it, with this id: the REST answer said so, its event arrived, or it was found.
        case sent(messageID: String)
        /// The server refused it for good (a missing permission, a timeout in the server, an empty or too long
        /// message, an unknown channel…), or — with ``Failure/mayHaveBeenSent`` — the outbox can no longer find
        /// out whether the server has it (a look-up the server refuses: the user may send but not read the
        /// channel's history); ``StoatClient/resend(_:)`` posts it again with a new key, and
        /// ``StoatClient/discard(_:)`` drops it.
        case failed(Failure)

        /// The state's name as the `--json` output prints it: `queued`, `sending`, `sent` or `failed`.
        public var name: String {
            switch self {
            case .queued: "queued"
            case .sending: "sending"
            case .sent: "sent"
            case .failed: "failed"
            }
        }
    }

    /// Why the outbox gave a message up.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// What kind of failure this is: the code of the ``StoatAPIError`` that refused the message
        /// (``api(_:)``: the server's error kind, `MissingPermission`, `EmptyMessage`, `UnknownChannel`…, or a
        /// code of the client's own, `redirectRefused`), or one of the outbox's own. Its ``rawValue`` is what
        /// `--json` prints and what the account's store keeps.
        public struct Code: LifelineErrorCode, RawRepresentable, Codable {
            /// The code's stable name, as printed in `--json` output and kept in the store.
            public var rawValue: String

            /// Creates a code from its stable name.
            public init(rawValue: String) { self.rawValue = rawValue }

            /// The session ended with the entry in a memory-only outbox.
            public static let loggedOut = Code(rawValue: "loggedOut")
            /// The server refused 1 000 keys for the message without storing it.
            public static let tooManyAttempts = Code(rawValue: "tooManyAttempts")
            /// A file of the send changed on disk since it was queued (its SHA-256 differs): other bytes are
            /// never sent in its place.
            public static let fileChanged = Code(rawValue: "fileChanged")
            /// A file of the send can no longer be read (moved, deleted, or its permissions changed).
            public static let fileUnreadable = Code(rawValue: "fileUnreadable")

            /// The code of a refusal with a ``StoatAPIError`` of code `code`: the same stable name, so
            /// `failure.code == .api(.missingPermission)`.
            ///
            /// - Parameter code: The API error's code.
            public static func api(_ code: StoatAPIError.Code) -> Self { Self(rawValue: code.rawValue) }
        }

        /// What kind of failure this is.
        public var code: Code
        /// A sentence for developers; never a secret.
        public var message: String
        /// Whether the server may have the message after all: a post went out whose answer was lost, and the
        /// look-up that would have found it was refused (``code`` says why: `MissingPermission` where the user
        /// may send but not read the channel's history) — or the session ended while it was being sent. The user
        /// decides: ``StoatClient/resend(_:)`` risks a second copy, ``StoatClient/discard(_:)`` risks none.
        public var mayHaveBeenSent: Bool

        /// Creates a failure.
        public init(code: Code, message: String, mayHaveBeenSent: Bool = false) {
            self.code = code
            self.message = message
            self.mayHaveBeenSent = mayHaveBeenSent
        }

        /// `code: message`.
        public var description: String { "\(code): \(message)" }
    }

    /// What an entry does to the server, as the `--json` output names it.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Posts a message.
        case send
        /// Replaces a message's text.
        case edit
        /// Deletes a message.
        case delete
        /// Adds the user's reaction to a message.
        case react
        /// Takes the user's reaction back.
        case unreact
    }

    /// A file a send uploads to the file server before it posts the message (``StoatClient/send(_:files:to:)``):
    /// where it is on disk, what it held when it was queued, and — once uploaded — its id on the file server.
    public struct PendingFile: Sendable, Hashable {
        /// The file's path, as it was queued.
        public var path: String
        /// The name it is uploaded under.
        public var filename: String
        /// Its size in bytes when it was queued.
        public var size: Int64
        /// The SHA-256 of its bytes when it was queued, in lowercase hex: the upload goes only while the file
        /// still has it.
        public var sha256: String
        /// Its id on the file server once uploaded (kept in the store: an upload done is never made again).
        public var uploadedID: String?

        /// Creates a pending file (for previews and tests; the outbox makes its own from an ``OutgoingFile``).
        ///
        /// - Parameters:
        ///   - path: The file's path.
        ///   - filename: The name it is uploaded under.
        ///   - size: Its size in bytes.
        ///   - sha256: The SHA-256 of its bytes, in lowercase hex.
        ///   - uploadedID: Its id on the file server, once uploaded.
        public init(path: String, filename: String, size: Int64, sha256: String, uploadedID: String? = nil) {
            self.path = path
            self.filename = filename
            self.size = size
            self.sha256 = sha256
            self.uploadedID = uploadedID
        }
    }

    /// The entry's identity, and the stem of its idempotency keys.
    public let nonce: String
    /// What the entry does: a send, or an action on the message ``target``.
    public let kind: Kind
    /// The message an action acts on; `nil` for a send.
    public let target: String?
    /// A reaction's emoji (``Kind/react``, ``Kind/unreact``); `nil` otherwise.
    public let emoji: String?
    /// The channel it is sent to (an action's: its target's channel).
    public let channel: String
    /// The message (its `idempotencyKey` is the ``nonce``; the outbox sends no body `nonce`); an edit's new
    /// text is its `content`; empty for the other actions.
    public let message: OutgoingMessage
    /// Where its delivery stands.
    public internal(set) var state: State
    /// The files a send uploads before it posts, in order (empty for a send without files and for an action);
    /// their ids join ``OutgoingMessage/attachments`` when the message is posted.
    public internal(set) var files: [PendingFile]
    /// While one of ``files`` uploads: the bytes of the entry's files sent so far, of all of them (an uploaded
    /// file counts whole); `nil` otherwise. Progress is not kept in the store: after a restart an interrupted
    /// upload starts again from 0.
    public internal(set) var progress: StoatFileServer.Progress?

    /// The ``nonce``.
    public var id: String { nonce }

    /// An entry as the outbox reports it: for an app's previews and the tests of its screens (only the outbox
    /// makes the entries it delivers, through ``StoatClient/send(_:to:)-(OutgoingMessage,_)``).
    ///
    /// - Parameters:
    ///   - nonce: The entry's identity.
    ///   - channel: The channel it is sent to.
    ///   - message: The message (an edit's new text is its `content`).
    ///   - state: Where its delivery stands.
    ///   - kind: What the entry does; a send by default.
    ///   - target: The message an action acts on.
    ///   - emoji: A reaction's emoji.
    ///   - files: The files a send uploads before it posts.
    ///   - progress: How far their upload is.
    public init(
        nonce: String, channel: String, message: OutgoingMessage, state: State, kind: Kind = .send,
        target: String? = nil, emoji: String? = nil, files: [PendingFile] = [],
        progress: StoatFileServer.Progress? = nil
    ) {
        self.nonce = nonce
        self.channel = channel
        self.message = message
        self.state = state
        self.kind = kind
        self.target = target
        self.emoji = emoji
        self.files = files
        self.progress = progress
    }
}

/// What the outbox reports, in order (``StoatClient/outboxEvents``).
public enum OutboxEvent: Sendable, Hashable {
    /// An entry's state changed, or an entry was read back from the account's store at sign-in.
    case changed(OutboxEntry)
    /// A stored entry could not be read (damaged, or written by a later version): it is skipped and left in
    /// the store, never sent and never deleted. The text says why, without its content.
    case unreadable(String)
}
