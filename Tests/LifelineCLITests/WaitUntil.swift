/// Yields until an asynchronous `condition` holds (the reference server's state, read through its actor): for
/// state the `lifeline` process reaches without a line to wait for. Bounded by the test's time limit: a cancelled
/// wait returns at once, so a broken test fails instead of spinning past its limit.
func waitUntil(async condition: () async -> Bool) async {
    while !Task.isCancelled, !(await condition()) { await Task.yield() }
}
