import TestProcess
import Testing

extension Trait where Self == TimeLimitTrait {
    /// The time limit of this module's suites: a bound for a hang, never a measure of speed.
    ///
    /// Swift Testing starts every test of a run at once, so on a loaded or slow machine a test's wall time is
    /// close to the whole run's however little it does: a limit shorter than the run fails tests that only
    /// waited their turn (1-minute limits failed by the dozen with `stress-ng --cpu 2` beside the run).
    ///
    /// Reading it also raises the test process's descriptor limit (``DescriptorLimit/raise()``): Swift Testing
    /// reads every suite's traits before it runs a test, so the run has its descriptors before it needs them.
    static var hangBound: Self {
        DescriptorLimit.raise()
        return .timeLimit(.minutes(10))
    }
}

extension Duration {
    /// How long a test waits for something that should happen (a server's state, a REST answer) before it fails:
    /// a bound for a failure, never a measure of speed, generous because a loaded machine is slow (see
    /// `hangBound`), and shorter than it so the test fails with its own message first.
    static var failureBound: Duration { .seconds(300) }
}
