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
    public func decode(_ bytes: Data) -> Outcome {
        guard bytes.count <= maximumFrameSize else { return .tooLarge(bytes: bytes.count) }
        do {
            return .event(try JSONDecoder().decode(EventEnvelope.self, from: bytes).event)
        } catch let error as DecodingError {
            return .undecodable(reason: Self.reason(error))
        } catch {
            return .undecodable(reason: "\(type(of: error))")
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

    private enum Key: String, CodingKey {
        case type, data, v, id, channel, user, result
    }

    private struct ErrorData: Decodable {
        var type: String
        var location: String?
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "Authenticated": event = .authenticated
        case "Ready": event = .ready(try Ready(from: decoder))
        case "Pong": event = .pong(data: try? container.decodeIfPresent(Int64.self, forKey: .data))
        case "Ping": event = .ping(data: try? container.decodeIfPresent(Int64.self, forKey: .data))
        case "Logout": event = .logout
        case "Error":
            if let data = try? container.decode(ErrorData.self, forKey: .data) {
                event = .error(BonfireError(kind: data.type, location: data.location))
            } else {
                // Older servers sent the kind as `error`; a bare Error is still an error.
                event = .error(BonfireError(kind: (try? container.decode(String.self, forKey: .data)) ?? "Unknown"))
            }
        case "Bulk":
            event = .bulk(try container.decode([EventEnvelope].self, forKey: .v).map(\.event))
        case "Message": event = .message(try Message(from: decoder))
        case "MessageUpdate":
            event = .messageUpdate(
                id: try container.decode(String.self, forKey: .id), channel: try container.decode(String.self, forKey: .channel))
        case "MessageDelete":
            event = .messageDelete(
                id: try container.decode(String.self, forKey: .id), channel: try container.decode(String.self, forKey: .channel))
        case "ChannelStartTyping":
            event = .channelStartTyping(
                channel: try container.decode(String.self, forKey: .id), user: try container.decode(String.self, forKey: .user))
        case "ChannelStopTyping":
            event = .channelStopTyping(
                channel: try container.decode(String.self, forKey: .id), user: try container.decode(String.self, forKey: .user))
        case "UserUpdate": event = .userUpdate(id: try container.decode(String.self, forKey: .id))
        case "ServerUpdate": event = .serverUpdate(id: try container.decode(String.self, forKey: .id))
        case "ServerDelete": event = .serverDelete(id: try container.decode(String.self, forKey: .id))
        case "ChannelUpdate": event = .channelUpdate(id: try container.decode(String.self, forKey: .id))
        case "ServerMemberJoin":
            event = .serverMemberJoin(
                server: try container.decode(String.self, forKey: .id), user: try container.decode(String.self, forKey: .user))
        case "ServerMemberLeave":
            event = .serverMemberLeave(
                server: try container.decode(String.self, forKey: .id), user: try container.decode(String.self, forKey: .user))
        case "ServerMemberUpdate":
            let id = try container.decode(Member.ID.self, forKey: .id)
            event = .serverMemberUpdate(server: id.server, user: id.user)
        case "OperationFinished":
            event = .operationFinished(
                id: try container.decode(String.self, forKey: .id), result: try container.decode(String.self, forKey: .result))
        default: event = .unknown(type: type)
        }
    }
}
