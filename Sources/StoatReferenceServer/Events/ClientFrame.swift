#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A frame a client sent on the events socket, as bonfire decodes it (`ClientMessage` in
/// `crates/core/database/src/events/server.rs`).
///
/// Pure parsing: malformed JSON, a missing or mistyped field and unknown types become cases, never errors,
/// so a misbehaving client can only affect its own connection. A frame bonfire cannot decode is skipped.
enum ClientFrame: Sendable, Equatable {
    case authenticate(token: String)
    case ping(PingData)
    /// A `Ping` whose data is not a non-negative integer or byte array, or with a non-null `responded`:
    /// bonfire cannot decode it and answers nothing.
    case pingWithInvalidData
    case subscribe(serverID: String)
    case beginTyping(channel: String)
    case endTyping(channel: String)
    case unknown(type: String)
    case malformed

    init(text: String) {
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8)),
            let type = object["type"]?.stringValue
        else {
            self = .malformed
            return
        }
        switch type {
        case "Authenticate":
            self = object["token"]?.stringValue.map { .authenticate(token: $0) } ?? .malformed
        case "Ping":
            if let responded = object["responded"], responded != .null {
                self = .pingWithInvalidData
            } else {
                self = PingData.validated(object["data"]).map { .ping($0) } ?? .pingWithInvalidData
            }
        case "Subscribe":
            self = object["server_id"]?.stringValue.map { .subscribe(serverID: $0) } ?? .malformed
        case "BeginTyping":
            self = object["channel"]?.stringValue.map { .beginTyping(channel: $0) } ?? .malformed
        case "EndTyping":
            self = object["channel"]?.stringValue.map { .endTyping(channel: $0) } ?? .malformed
        default:
            self = .unknown(type: type)
        }
    }
}
