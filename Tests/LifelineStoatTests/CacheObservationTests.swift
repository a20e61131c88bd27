import Foundation
import Lifeline
import Synchronization
import Testing

@testable import LifelineStoat

@Suite("Observing the cache and the events")
struct CacheObservationTests {
    @Test("every events observer gets every event in order; one that falls behind ends loudly, the others go on")
    func eventsBroadcast() async throws {
        let hub = Broadcaster<BonfireEvent>.events(limit: 3)
        var fast = StoatEvents(hub: hub).makeAsyncIterator()
        var slow = StoatEvents(hub: hub).makeAsyncIterator()
        #expect(hub.subscriberCount == 2)
        let events: [BonfireEvent] = (1...5).map { .channelDelete(id: "\($0)") }
        for event in events.prefix(3) { hub.publish(event) }
        for event in events.prefix(3) { #expect(try await fast.next() == event) }
        for event in events.dropFirst(3) { hub.publish(event) }  // slow has 3 buffered: the 4th overflows it
        for event in events.dropFirst(3) { #expect(try await fast.next() == event) }
        for event in events.prefix(3) { #expect(try await slow.next() == event) }
        await #expect(throws: StoatClientError.self) { _ = try await slow.next() }
        #expect(hub.subscriberCount == 1)
        hub.finish()
        #expect(try await fast.next() == nil)
    }

    @Test("a cache observation starts with the current value and then reads the newest value after changes")
    func newestWins() async {
        let signals = ChangeSignals()
        let value = Counter()
        let observation = CacheObservation(signals: signals, key: .chats) { value.value }
        var iterator = observation.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        for _ in 1...5 {
            _ = value.increment()
            signals.signal([.chats])
        }
        signals.signal([.history("other")])
        #expect(await iterator.next() == 5)  // five changes while it was not reading: one wake-up, the newest value
        signals.finish()
        #expect(await iterator.next() == nil)
    }

    @Test("a change signal wakes only its key's observers, and a key nobody observes any more is let go")
    func signalsByKey() async {
        let signals = ChangeSignals()
        var general = signals.subscribe(.history("general")).makeAsyncIterator()
        var random = signals.subscribe(.history("random")).makeAsyncIterator()
        #expect(await general.next() != nil)  // the current value's wake-up
        #expect(await random.next() != nil)
        #expect(signals.keyCount == 2)
        signals.signal([.history("general"), .members("general")])
        #expect(await general.next() != nil)
        // An observation of a key ends with its task; the key's broadcaster goes at the key's next change.
        let watcher = Task {
            var members = signals.subscribe(.members("s")).makeAsyncIterator()
            _ = await members.next()
            _ = await members.next()
        }
        await waitUntil { signals.keyCount == 3 }
        watcher.cancel()
        await watcher.value
        signals.signal([.members("s")])
        #expect(signals.keyCount == 2)
        signals.finish()
        #expect(await general.next() == nil)
        #expect(await random.next() == nil)
        var late = signals.subscribe(.chats).makeAsyncIterator()
        #expect(await late.next() != nil)  // the current value, then the end: the client stopped
        #expect(await late.next() == nil)
    }

    @Test("concurrent fetches of one key share one run; a later one runs again")
    func sharedFetches() async {
        let fetches = SharedFetches<Int>()
        let runs = Counter()
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        let body: @Sendable () async -> Int = {
            let run = runs.increment()
            startedContinuation.yield()
            for await _ in release { break }
            return run * 10
        }
        async let first = fetches.run(key: "a", body)
        var startedIterator = started.makeAsyncIterator()
        await startedIterator.next()
        // The first run is in flight: a second caller joins it instead of running.
        async let second = fetches.run(key: "a", body)
        await waitUntil { fetches.isInFlight("a", followers: 1) }
        releaseContinuation.yield()
        #expect(await first == 10)
        #expect(await second == 10)
        #expect(runs.value == 1)
        releaseContinuation.yield()
        #expect(await fetches.run(key: "a", body) == 20)
    }

    @Test("the serial gate lets one body through at a time, in arrival order")
    func serialGate() async {
        let gate = SerialGate()
        let log = Log()
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        async let first: Void = gate.run {
            log.append("first in")
            enteredContinuation.yield()
            for await _ in release { break }
            log.append("first out")
        }
        var enteredIterator = entered.makeAsyncIterator()
        await enteredIterator.next()
        async let second: Void = gate.run { log.append("second") }
        await waitUntil { gate.waiterCount == 1 }
        releaseContinuation.yield()
        _ = await (first, second)
        #expect(log.entries == ["first in", "first out", "second"])
    }
}

/// Yields until `condition` holds: for state another task reaches without a signal to await. Bounded
/// by the test's time limit, never by a duration: a cancelled wait returns (a loop that ignored cancellation
/// would spin for ever once the limit passed, and keep the whole run from ending).
func waitUntil(_ condition: () -> Bool) async {
    while !condition(), !Task.isCancelled { await Task.yield() }
}

/// Lines appended from several tasks.
final class Log: Sendable {
    private let lines = Mutex<[String]>([])
    var entries: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// A count shared by several tasks.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}
