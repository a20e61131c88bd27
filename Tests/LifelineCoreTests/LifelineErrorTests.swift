import LifelineCore
import Testing

@Suite("One error protocol: code, message, cause, description and equality in one place")
struct LifelineErrorTests {
    struct Underlying: Error {}

    @Test("every error describes itself as code: message, and its code as its wire name")
    func description() {
        let cause = TemporaryFailureCause(code: .heartbeatTimeout, message: "no Pong within 2.0 seconds")
        #expect(cause.description == "heartbeatTimeout: no Pong within 2.0 seconds")
        #expect(TemporaryFailureCause.Code.frameRefused.description == "frameRefused")
        let configuration = ConfigurationError(code: .outOfRange, message: "a ceiling below its unit")
        #expect("\(configuration)" == "outOfRange: a ceiling below its unit")
        #expect(SessionFailure.temporary(cause).description == "heartbeatTimeout: no Pong within 2.0 seconds")
        #expect(SessionFailure.loggedOut.description == "loggedOut: the server ended the session")
    }

    @Test("errors are equal, and hash equal, by code and message; the cause is not compared")
    func equality() {
        let one = PermanentFailureReason(code: .invalidSession, message: "InvalidSession", cause: Underlying())
        let other = PermanentFailureReason(code: .invalidSession, message: "InvalidSession")
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
        #expect(one.hasSameCodeAndMessage(as: other))
        #expect(one != PermanentFailureReason(code: .authenticationFailed, message: "InvalidSession"))
        #expect(one != PermanentFailureReason(code: .invalidSession, message: "InvalidToken"))
        #expect(one.cause is Underlying)
    }

    @Test("a failure's code is typed: an app switches on it, and its raw value is the name JSON prints")
    func sessionFailureCode() {
        let failures: [SessionFailure] = [
            .temporary(TemporaryFailureCause(code: .heartbeatTimeout, message: "no Pong")),
            .permanent(PermanentFailureReason(code: .accountDisabled, message: "Disabled", cause: Underlying())),
            .loggedOut,
        ]
        let shown = failures.map { failure -> String in
            switch failure.code {
            case .temporary(.heartbeatTimeout): "reconnecting"
            case .permanent(.accountDisabled): "disabled"
            case .loggedOut: "signed out"
            default: "other"
            }
        }
        #expect(shown == ["reconnecting", "disabled", "signed out"])
        #expect(failures.map(\.code.rawValue) == ["heartbeatTimeout", "accountDisabled", "loggedOut"])
        #expect(failures[0].code == .temporary(.heartbeatTimeout))
        #expect(failures[0].code != .temporary(.connectTimeout))
        #expect(failures[1].cause is Underlying)
        #expect(failures[2].cause == nil)
    }

    @Test("an error matches its code in a switch")
    func matchesCode() {
        let error = TemporaryFailureCause(code: .deliveryStalled, message: "deaf")
        switch error {
        case TemporaryFailureCause.Code.socketDropped: Issue.record("matched another code")
        case TemporaryFailureCause.Code.deliveryStalled: break
        default: Issue.record("matched no code")
        }
    }

    @Test("a cause of the same type and code is flattened into one error, as grpc-swift's RPCError does")
    func flattensSameCode() {
        let inner = TemporaryFailureCause(code: .socketDropped, message: "the peer reset", cause: Underlying())
        let outer = TemporaryFailureCause(
            code: .socketDropped, message: "the heartbeat could not be written", cause: inner)
        #expect(outer.message == "the heartbeat could not be written the peer reset")
        #expect(outer.cause is Underlying, "the cause's own cause, not the cause nested in itself")
        let twice = TemporaryFailureCause(
            code: .socketDropped, message: "the heartbeat could not be written", cause: outer)
        #expect(twice.message == outer.message, "the same message is carried once")
        #expect(twice.cause is Underlying)

        let other = TemporaryFailureCause(code: .connectFailed, message: "could not reconnect", cause: inner)
        #expect(other.message == "could not reconnect")
        #expect((other.cause as? TemporaryFailureCause) == inner, "another code keeps its cause as it is")
        let otherType = PermanentFailureReason(code: .invalidSession, message: "InvalidSession", cause: inner)
        #expect((otherType.cause as? TemporaryFailureCause) == inner, "another type keeps its cause as it is")
    }

    @Test("an error that is only its codes is CodedError over its code type, and its Code names that type")
    func codedError() {
        let code: ConfigurationError.Code = .outOfRange
        #expect(code == ConfigurationErrorCode.outOfRange)
        let error: any Error = ConfigurationError(code: code, message: "a negative count")
        let caught = error as? ConfigurationError
        #expect(caught?.code == .outOfRange)
        #expect(error as? TemporaryFailureCause == nil, "each code type makes a type of its own")
        #expect(PermanentFailureReason.invalidSession.code == .invalidSession)
        #expect(TemporaryFailureCause.socketDropped.description == "socketDropped: the socket closed")
    }

    /// A code whose errors carry a status and a link beside the three: how an error with fields of its own
    /// declares them.
    struct FetchCode: LifelineErrorCode, RawRepresentable {
        typealias Details = FetchDetails
        var rawValue: String
        static let refused = FetchCode(rawValue: "refused")
    }

    struct FetchDetails: Sendable {
        var status: Int?
        var link: String?
    }

    @Test("an error with fields of its own keeps them as details, read and written as its own properties")
    func details() {
        var error = CodedError<FetchCode>(
            code: .refused, message: "answered 403", details: FetchDetails(status: 403), cause: Underlying())
        #expect(error.status == 403)
        #expect(error.link == nil)
        error.link = "https://example.com/why"
        #expect(error.details.link == "https://example.com/why")
        #expect(error.description == "refused: answered 403")
        #expect(error == CodedError(code: .refused, message: "answered 403", details: FetchDetails(status: 500)))

        let outer = CodedError<FetchCode>(
            code: .refused, message: "the fetch failed:", details: FetchDetails(status: 401), cause: error)
        #expect(outer.message == "the fetch failed: answered 403", "a same-code cause is flattened")
        #expect(outer.status == 401, "the outer error's details are kept")
        #expect(outer.cause is Underlying)
    }
}
