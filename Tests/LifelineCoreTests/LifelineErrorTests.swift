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
}
