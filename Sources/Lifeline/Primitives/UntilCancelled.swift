/// Returns when the calling task is cancelled, and not before: the way long-lived work waits for its end
/// (``Session/run()`` after its network monitor, a command waiting for a signal, a scripted play that hangs).
package func untilCancelled() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Never.self)
    await withTaskCancellationHandler {
        for await _ in stream {}
    } onCancel: {
        continuation.finish()
    }
}
