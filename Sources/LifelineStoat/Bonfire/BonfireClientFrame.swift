/// A frame a client sends on Stoat's events socket ("Bonfire"), JSON tagged by `type`.
public enum BonfireClientFrame: Sendable, Hashable {
    /// `{"type":"Authenticate","token":…}`: authenticate the socket (Lifeline never puts the token in the URL).
    case authenticate(token: String)
    /// `{"type":"Ping","data":…}`: the heartbeat; the server answers `Pong` with the same data.
    case ping(Int64)
    /// `{"type":"Pong","data":…}`: the answer to a server's `Ping`.
    case pong(Int64)
    /// `{"type":"Subscribe","server_id":…}`: receive the server's member and presence events for 15 minutes.
    case subscribe(serverID: String)
    /// `{"type":"BeginTyping","channel":…}`.
    case beginTyping(channel: String)
    /// `{"type":"EndTyping","channel":…}`.
    case endTyping(channel: String)

    /// The frame as JSON text.
    public var json: String {
        switch self {
        case .authenticate(let token): #"{"type":"Authenticate","token":\#(JSONString(token))}"#
        case .ping(let data): #"{"type":"Ping","data":\#(data)}"#
        case .pong(let data): #"{"type":"Pong","data":\#(data)}"#
        case .subscribe(let server): #"{"type":"Subscribe","server_id":\#(JSONString(server))}"#
        case .beginTyping(let channel): #"{"type":"BeginTyping","channel":\#(JSONString(channel))}"#
        case .endTyping(let channel): #"{"type":"EndTyping","channel":\#(JSONString(channel))}"#
        }
    }
}

extension BonfireClientFrame: CustomStringConvertible {
    /// The frame without secrets: an `Authenticate` frame's token is redacted.
    public var description: String {
        switch self {
        case .authenticate: #"{"type":"Authenticate","token":"<redacted>"}"#
        default: json
        }
    }
}

/// A string as a JSON string literal, quoted and escaped (RFC 8259 §7).
func JSONString(_ string: String) -> String {
    var result = "\""
    result.reserveCapacity(string.utf8.count + 2)
    for scalar in string.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}
