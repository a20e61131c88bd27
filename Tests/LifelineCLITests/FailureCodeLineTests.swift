import LifelineCLIOutput
import LifelineCore
import Testing

@testable import LifelineCLI

@Suite("A typed failure code prints its wire name")
struct FailureCodeLineTests {
    @Test("a transition's cause prints exactly the line it printed when the code was a string")
    func causeLineUnchanged() {
        let cause = SessionFailure.temporary(
            TemporaryFailureCause(code: .heartbeatTimeout, message: "no Pong within 2.0 seconds"))
        guard case .object(let object) = Timeline.causeObject(cause) else {
            Issue.record("the cause is not an object")
            return
        }
        #expect(JSONLine.encode(object) == #"{"code":"heartbeatTimeout","message":"no Pong within 2.0 seconds"}"#)
        let reason = SessionFailure.permanent(PermanentFailureReason(code: .invalidSession, message: "InvalidSession"))
        guard case .object(let permanent) = Timeline.causeObject(reason) else {
            Issue.record("the cause is not an object")
            return
        }
        #expect(JSONLine.encode(permanent) == #"{"code":"invalidSession","message":"InvalidSession"}"#)
    }
}
