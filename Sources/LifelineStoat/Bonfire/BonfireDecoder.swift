public import Foundation

/// Decodes the frames of Stoat's events socket. It never throws at its caller: a frame is an event, an
/// event type Lifeline does not know, or undecodable — and the connection tolerates the last two.
public struct BonfireDecoder: Sendable {
    /// What decoding one frame gave.
    public enum Outcome: Sendable, Hashable {
        /// A known event (``BonfireEvent/unknown(type:)`` for a well-formed frame of an unknown type).
        case event(BonfireEvent)
        /// The frame is larger than ``maximumFrameSize``.
        case tooLarge(bytes: Int)
        /// The frame is not a JSON object with a string `type`, or a known type's fields are wrong.
        case undecodable(reason: String)
    }

    /// The largest frame decoded, in bytes. A large account's `Ready` is several megabytes. Default 64 MiB.
    public var maximumFrameSize: Int

    /// Creates a decoder.
    public init(maximumFrameSize: Int = 64 << 20) {
        self.maximumFrameSize = maximumFrameSize
    }

    /// Decodes one text frame.
    public func decode(_ text: String) -> Outcome {
        decode(Data(text.utf8))
    }

    /// Decodes one frame's bytes.
    ///
    /// A `Ready` frame — the largest by far, several megabytes for a large account — is read by a decoder
    /// written for it, which gives the same ``Ready`` as `JSONDecoder` several times faster; when that decoder
    /// refuses a frame, `JSONDecoder` decodes it, so the outcome, reason included, is always `JSONDecoder`'s.
    /// Other events go straight to `JSONDecoder` when their `type` comes first, as Stoat writes it; otherwise
    /// the fast path reads up to their `type` before handing them over.
    public func decode(_ bytes: Data) -> Outcome {
        guard bytes.count <= maximumFrameSize else { return .tooLarge(bytes: bytes.count) }
        if FastReadyDecoder.mightBeReady(bytes), let ready = try? FastReadyDecoder.decode(bytes) {
            return .event(.ready(ready))
        }
        return Self.decodeWithFoundation(bytes)
    }

    /// Decodes one MessagePack frame (`format=msgpack`): the same events as the JSON frame it stands for.
    ///
    /// A `Ready` frame is read straight into ``Ready`` by the fast decoder's MessagePack reader, through the
    /// same field dispatch as a JSON `Ready`. Any other frame, and a `Ready` that reader refuses, is read as
    /// the JSON it stands for (by a hand-written codec, bounded like the JSON scanner) and decoded as a JSON
    /// frame is, so both formats give the same outcome; a frame that is not well-formed MessagePack is
    /// ``Outcome/undecodable(reason:)``. The limit is the same: a frame larger than ``maximumFrameSize`` is
    /// ``Outcome/tooLarge(bytes:)``, and so is one transcoded whose JSON would be more than twice that (a
    /// limit on the transcoding's buffer, which the direct `Ready` reader does not build).
    public func decode(messagePack bytes: Data) -> Outcome {
        guard bytes.count <= maximumFrameSize else { return .tooLarge(bytes: bytes.count) }
        if FastReadyDecoder.mightBeReady(messagePack: bytes),
            let ready = try? FastReadyDecoder.decode(messagePack: bytes)
        {
            return .event(.ready(ready))
        }
        return decodeByTranscoding(messagePack: bytes)
    }

    /// Decodes one MessagePack frame as the JSON it stands for: the reference the direct `Ready` reader must
    /// agree with.
    func decodeByTranscoding(messagePack bytes: Data) -> Outcome {
        guard bytes.count <= maximumFrameSize else { return .tooLarge(bytes: bytes.count) }
        let json: [UInt8]
        do {
            let limit = maximumFrameSize > Int.max / 2 ? Int.max : maximumFrameSize * 2
            json = try MessagePack.json(from: bytes, maximumSize: limit)
        } catch  where error.code == .tooLarge {
            return .tooLarge(bytes: bytes.count)
        } catch {
            return .undecodable(reason: "MessagePack: \(error)")
        }
        return json.withUnsafeBufferPointer { buffer in
            var decoder = self
            decoder.maximumFrameSize = buffer.count
            guard let base = buffer.baseAddress, buffer.count > 0 else { return decoder.decode(Data()) }
            let data = Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: buffer.count, deallocator: .none)
            return decoder.decode(data)
        }
    }

    /// Decodes one frame with `JSONDecoder` alone: the reference the fast path must agree with.
    static func decodeWithFoundation(_ bytes: Data) -> Outcome {
        decodeReportingSkips(bytes).outcome
    }

    /// Decodes one frame, with the reasons of the events a `Bulk` frame carried that did not decode: each
    /// of a `Bulk`'s events is decoded on its own, so one bad event is skipped and the rest are applied.
    func decodeReportingSkips(_ bytes: Data) -> (outcome: Outcome, skipped: [String]) {
        guard bytes.count <= maximumFrameSize else { return (.tooLarge(bytes: bytes.count), []) }
        if FastReadyDecoder.mightBeReady(bytes), let ready = try? FastReadyDecoder.decode(bytes) {
            return (.event(.ready(ready)), [])
        }
        return Self.decodeReportingSkips(bytes)
    }

    /// ``decodeReportingSkips(_:)`` with `JSONDecoder` alone.
    static func decodeReportingSkips(_ bytes: Data) -> (outcome: Outcome, skipped: [String]) {
        do {
            let envelope = try JSONDecoder().decode(EventEnvelope.self, from: bytes)
            return (.event(envelope.event), envelope.skipped)
        } catch let error as DecodingError {
            return (.undecodable(reason: Self.reason(error)), [])
        } catch {
            return (.undecodable(reason: "\(type(of: error))"), [])
        }
    }

    /// A short reason for a decoding error, naming the path but never a value (a value may be a secret).
    static func reason(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context): return "malformed JSON at \(path(context))"
        case .keyNotFound(let key, let context): return "missing \(key.stringValue) at \(path(context))"
        case .typeMismatch(_, let context): return "wrong type at \(path(context))"
        case .valueNotFound(_, let context): return "null at \(path(context))"
        @unknown default: return "undecodable"
        }
    }
}

/// The wire shape of every server event: a JSON object tagged by `type`, decoded in one pass.
struct EventEnvelope: Decodable {
    let event: BonfireEvent
    /// Why each event of a `Bulk` that did not decode was skipped.
    var skipped: [String] = []

    /// One event of a `Bulk`: decoded, or the reason it was not.
    private struct BulkElement: Decodable {
        var envelope: EventEnvelope?
        var failure: String?

        init(from decoder: any Decoder) throws {
            do {
                envelope = try EventEnvelope(from: decoder)
            } catch let error as DecodingError {
                failure = BonfireDecoder.reason(error)
            }
        }
    }

    private enum Key: String, CodingKey {
        case type, data, v, id, channel, user, result, clear, append, ids, member, reason, server, channels, emojis
        case channelID = "channel_id"
        case userID = "user_id"
        case emojiID = "emoji_id"
        case messageID = "message_id"
        case flags, slowmodes
    }

    private struct ErrorData: Decodable {
        var type: String
        var location: String?
        var detail: String?

        enum CodingKeys: String, CodingKey { case type, location, detail }

        /// A `detail` or `location` of an unexpected type loses only itself.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decode(String.self, forKey: .type)
            location = try? container.decodeIfPresent(String.self, forKey: .location)
            detail = try? container.decodeIfPresent(String.self, forKey: .detail)
        }
    }

    private struct Append: Decodable {
        var embeds: [Message.Embed]?
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let type = try container.decode(String.self, forKey: .type)
        func string(_ key: Key) throws -> String { try container.decode(String.self, forKey: key) }
        /// `clear`, absent when empty (stoatchat's `#[serde(default)]`).
        func clear<Field: Decodable>(_: Field.Type) throws -> [Field] {
            try container.decodeIfPresent([Field].self, forKey: .clear) ?? []
        }
        switch type {
        case "Authenticated": event = .authenticated
        case "Ready": event = .ready(try Ready(from: decoder))
        case "Pong": event = .pong(data: try? container.decodeIfPresent(Int64.self, forKey: .data))
        case "Ping": event = .ping(data: try? container.decodeIfPresent(Int64.self, forKey: .data))
        case "Logout": event = .logout
        case "Error":
            if let data = try? container.decode(ErrorData.self, forKey: .data) {
                event = .error(BonfireError(kind: data.type, location: data.location, detail: data.detail))
            } else {
                // Older servers sent the kind as `error`; a bare Error is still an error.
                event = .error(BonfireError(kind: (try? container.decode(String.self, forKey: .data)) ?? "Unknown"))
            }
        case "Bulk":
            // Each event on its own: one that does not decode is skipped (and said), the others are applied.
            let elements = try container.decode([BulkElement].self, forKey: .v)
            event = .bulk(elements.compactMap { $0.envelope?.event })
            skipped = elements.flatMap { element in
                element.failure.map { [$0] } ?? (element.envelope?.skipped ?? [])
            }
        case "Message": event = .message(try Message(from: decoder))
        case "MessageUpdate":
            event = .messageUpdate(
                id: try string(.id), channel: try string(.channel),
                data: try container.decode(PartialMessage.self, forKey: .data), clear: try clear(Message.Field.self))
        case "MessageAppend":
            let append = try container.decode(Append.self, forKey: .append)
            event = .messageAppend(id: try string(.id), channel: try string(.channel), embeds: append.embeds ?? [])
        case "MessageDelete":
            event = .messageDelete(id: try string(.id), channel: try string(.channel))
        case "BulkMessageDelete":
            event = .bulkMessageDelete(
                channel: try string(.channel), ids: try container.decode([String].self, forKey: .ids))
        case "MessageReact":
            event = .messageReact(
                id: try string(.id), channel: try string(.channelID), user: try string(.userID),
                emoji: try string(.emojiID))
        case "MessageUnreact":
            event = .messageUnreact(
                id: try string(.id), channel: try string(.channelID), user: try string(.userID),
                emoji: try string(.emojiID))
        case "MessageRemoveReaction":
            event = .messageRemoveReaction(
                id: try string(.id), channel: try string(.channelID), emoji: try string(.emojiID))
        case "ChannelCreate": event = .channelCreate(try Channel(from: decoder))
        case "ChannelUpdate":
            event = .channelUpdate(
                id: try string(.id), data: try container.decode(PartialChannel.self, forKey: .data),
                clear: try clear(Channel.Field.self))
        case "ChannelDelete": event = .channelDelete(id: try string(.id))
        case "ChannelGroupJoin": event = .channelGroupJoin(channel: try string(.id), user: try string(.user))
        case "ChannelGroupLeave": event = .channelGroupLeave(channel: try string(.id), user: try string(.user))
        case "ChannelStartTyping": event = .channelStartTyping(channel: try string(.id), user: try string(.user))
        case "ChannelStopTyping": event = .channelStopTyping(channel: try string(.id), user: try string(.user))
        case "ChannelAck":
            event = .channelAck(channel: try string(.id), user: try string(.user), messageID: try string(.messageID))
        case "ServerCreate":
            event = .serverCreate(
                try container.decode(Server.self, forKey: .server),
                channels: try container.decodeIfPresent([Channel].self, forKey: .channels) ?? [],
                emojis: try container.decodeIfPresent([Emoji].self, forKey: .emojis) ?? [])
        case "ServerUpdate":
            event = .serverUpdate(
                id: try string(.id), data: try container.decode(PartialServer.self, forKey: .data),
                clear: try clear(Server.Field.self))
        case "ServerDelete": event = .serverDelete(id: try string(.id))
        case "ServerMemberJoin":
            let member = try container.decodeIfPresent(Member.self, forKey: .member)
            // `user` is deprecated in favour of `member._id.user`; either names the user.
            let user = try container.decodeIfPresent(String.self, forKey: .user) ?? member?.id.user
            guard let user else {
                throw DecodingError.keyNotFound(
                    Key.user, .init(codingPath: decoder.codingPath, debugDescription: "no user"))
            }
            event = .serverMemberJoin(server: try string(.id), user: user, member: member)
        case "ServerMemberLeave":
            event = .serverMemberLeave(
                server: try string(.id), user: try string(.user),
                reason: try container.decodeIfPresent(Member.RemovalReason.self, forKey: .reason))
        case "ServerMemberUpdate":
            event = .serverMemberUpdate(
                id: try container.decode(Member.ID.self, forKey: .id),
                data: try container.decode(PartialMember.self, forKey: .data), clear: try clear(Member.Field.self))
        case "UserUpdate":
            event = .userUpdate(
                id: try string(.id), data: try container.decode(PartialUser.self, forKey: .data),
                clear: try clear(User.Field.self))
        case "UserRelationship":
            event = .userRelationship(id: try string(.id), user: try container.decode(User.self, forKey: .user))
        case "UserPlatformWipe":
            event = .userPlatformWipe(user: try string(.userID), flags: try container.decode(Int.self, forKey: .flags))
        case "UserSlowmodes":
            event = .userSlowmodes(try container.decode([ChannelSlowmode].self, forKey: .slowmodes))
        case "EmojiCreate": event = .emojiCreate(try Emoji(from: decoder))
        case "EmojiDelete": event = .emojiDelete(id: try string(.id))
        case "OperationFinished":
            event = .operationFinished(id: try string(.id), result: try string(.result))
        default: event = .unknown(type: type)
        }
    }
}
