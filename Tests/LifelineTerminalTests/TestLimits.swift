extension Duration {
    /// How long a test waits for something that should happen (a child's output, a screen's contents) before it
    /// fails: a bound for a failure, never a measure of speed, generous because a loaded machine is slow (Swift
    /// Testing starts every test of a run at once, so a test's wall time is close to the whole run's).
    static var failureBound: Duration { .seconds(300) }
}
