import Lifeline
import LifelineCore
import LifelineStoat

extension StoatConnectionFactory.Configuration {
    /// The socket's deadlines for a test against a server on the wall clock that is not about those deadlines:
    /// the connect, `Ready` and Pong deadlines as long as a failure bound, so a loaded machine (the test process
    /// and its in-process server starved of CPU for seconds) never misses one by accident. A test that wants a
    /// deadline to pass sets it itself, or makes the server cause it.
    static var patient: Self {
        Self(pongTimeout: .failureBound, connectTimeout: .failureBound, readyTimeout: .failureBound)
    }
}

extension StoatClient.Configuration {
    /// ``StoatConnectionFactory/Configuration/patient``'s socket, with REST calls, plays and the delivery watch as
    /// patient: for tests on the wall clock that are not about those deadlines.
    static var patient: Self {
        var configuration = Self(connection: .patient)
        configuration.requestTimeout = .failureBound
        configuration.session.replayTimeout = .failureBound
        configuration.session.deliveryWatch = try! DeliveryWatchPolicy(deadline: .failureBound)
        return configuration
    }
}

extension StoatClient.Configuration {
    /// `configuration` with REST calls as patient as a failure bound, for a client whose timers run on a test
    /// clock: a REST call's exchange runs on the wall clock (its deadline is the part of ``StoatAPI/requestTimeout``
    /// left on the API's clock), so a loaded machine could otherwise time it out.
    static func patientREST(_ configuration: Self = Self()) -> Self {
        var configuration = configuration
        configuration.requestTimeout = .failureBound
        return configuration
    }
}
