public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process that tests start: the part of Foundation's `Process` they use, on `posix_spawn` and `waitpid`.
///
/// Not Foundation's `Process`, because on Linux it learns of a child's exit through a `CFSocket`, which watches its
/// descriptors with `select(2)`: a descriptor numbered 1 024 or more is outside `select`'s set, and writing it
/// corrupts memory. A full `swift test` holds about 1 700 descriptors at its peak (every test starts at once, each
/// with its servers and sockets), so its children were started above that line: the run crashed inside
/// `Process.run()` (`__memmove_avx_unaligned_erms`) or a child's exit was never seen. Here a thread of its own waits
/// for each child with `waitpid`, and the child gets only its three standard streams (every other descriptor is
/// closed in it), with default signal handling and no blocked signal.
///
/// Set the properties, then ``run()``; after that they are read only.
public final class ChildProcess: Sendable {
    /// How the child ended.
    public enum TerminationReason: Sendable, Equatable {
        /// It exited; ``ChildProcess/terminationStatus`` is its exit status.
        case exit
        /// A signal ended it; ``ChildProcess/terminationStatus`` is the signal's number.
        case uncaughtSignal
    }

    private struct State {
        var executableURL: URL?
        var arguments: [String] = []
        var environment: [String: String]?
        var standardInput: (any Sendable)?
        var standardOutput: (any Sendable)?
        var standardError: (any Sendable)?
        var terminationHandler: (@Sendable (ChildProcess) -> Void)?
        var processIdentifier: pid_t = 0
        var ended: (reason: TerminationReason, status: Int32)?
        var waiters: [(id: UUID, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    /// Signalled once the child ended, for ``waitUntilExit()``.
    private let ended = NSCondition()

    /// A child not yet started.
    public init() {}

    /// The program to run.
    public var executableURL: URL? {
        get { state.withLock { $0.executableURL } }
        set { state.withLock { $0.executableURL = newValue } }
    }

    /// Its arguments, without the program's name.
    public var arguments: [String] {
        get { state.withLock { $0.arguments } }
        set { state.withLock { $0.arguments = newValue } }
    }

    /// Its environment; `nil` gives it this process's.
    public var environment: [String: String]? {
        get { state.withLock { $0.environment } }
        set { state.withLock { $0.environment = newValue } }
    }

    /// Its standard input: a `Pipe` (it reads the pipe's reading end), a `FileHandle`, or `nil` for this process's.
    public var standardInput: (any Sendable)? {
        get { state.withLock { $0.standardInput } }
        set { state.withLock { $0.standardInput = newValue } }
    }

    /// Its standard output: a `Pipe` (it writes the pipe's writing end), a `FileHandle`, or `nil` for this
    /// process's.
    public var standardOutput: (any Sendable)? {
        get { state.withLock { $0.standardOutput } }
        set { state.withLock { $0.standardOutput = newValue } }
    }

    /// Its standard error, as ``standardOutput``.
    public var standardError: (any Sendable)? {
        get { state.withLock { $0.standardError } }
        set { state.withLock { $0.standardError = newValue } }
    }

    /// Called once, on the waiting thread, when the child has ended.
    public var terminationHandler: (@Sendable (ChildProcess) -> Void)? {
        get { state.withLock { $0.terminationHandler } }
        set { state.withLock { $0.terminationHandler = newValue } }
    }

    /// The child's process id; 0 before ``run()``.
    public var processIdentifier: Int32 { state.withLock { $0.processIdentifier } }

    /// Whether the child has started and not yet ended.
    public var isRunning: Bool { state.withLock { $0.processIdentifier != 0 && $0.ended == nil } }

    /// How the child ended; `.exit` while it runs.
    public var terminationReason: TerminationReason { state.withLock { $0.ended?.reason ?? .exit } }

    /// Its exit status, or the number of the signal that ended it; 0 while it runs.
    public var terminationStatus: Int32 { state.withLock { $0.ended?.status ?? 0 } }

    /// Starts the child.
    ///
    /// - Throws: `POSIXError` when it cannot be started (no such program, no resources).
    public func run() throws {
        let (url, arguments, environment, streams) = state.withLock { state in
            (
                state.executableURL, state.arguments, state.environment,
                [state.standardInput, state.standardOutput, state.standardError]
            )
        }
        guard let url else { throw POSIXError(.ENOENT) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        // The child's ends of its pipes, closed here once it has them.
        var childEnds: [FileHandle] = []
        for (target, stream) in streams.enumerated() {
            let handle: FileHandle?
            switch stream {
            case let pipe as Pipe:
                handle = target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                childEnds.append(handle!)
            case let file as FileHandle:
                handle = file
            default:
                handle = nil
            }
            if let handle { posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, Int32(target)) }
        }
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        #if canImport(Glibc)
            guard let closeFrom = Self.closeFrom else { throw POSIXError(.ENOSYS) }
            _ = closeFrom(&actions, 3)
        #elseif canImport(Darwin)
            flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([url.path] + arguments).map { strdup($0) } + [nil]
        let environmentPairs = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = environmentPairs.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, url.path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        for end in childEnds { try? end.close() }
        let child = pid
        state.withLock { $0.processIdentifier = child }
        let thread = Thread { [self] in reap(child) }
        thread.name = "child \(pid)"
        thread.start()
    }

    /// Sends the child SIGTERM, if it still runs.
    public func terminate() { signal(SIGTERM) }

    /// Sends the child `number`, if it still runs.
    public func signal(_ number: Int32) {
        let pid = state.withLock { $0.ended == nil ? $0.processIdentifier : 0 }
        if pid > 0 { kill(pid, number) }
    }

    /// Blocks the calling thread until the child has ended: never call it on a thread of Swift's cooperative pool
    /// (use ``exited()`` there).
    public func waitUntilExit() {
        ended.lock()
        while state.withLock({ $0.ended == nil && $0.processIdentifier != 0 }) { ended.wait() }
        ended.unlock()
    }

    /// Waits until the child has ended; `false` when the waiting task was cancelled first (the child may run on).
    @discardableResult
    public func exited() async -> Bool {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.ended != nil || state.processIdentifier == 0 || Task.isCancelled { return true }
                    state.waiters.append((id, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
            return state.withLock { $0.ended != nil }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            waiter?.resume()
        }
    }

    /// Waits for the child on this thread, then records how it ended and tells everyone waiting.
    private func reap(_ pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // The wait status: the low 7 bits are the signal that ended it, or 0 for an exit with status bits 8-15.
        let signal = status & 0x7f
        let ending: (TerminationReason, Int32) = signal == 0 ? (.exit, (status >> 8) & 0xff) : (.uncaughtSignal, signal)
        let (handler, waiters) = state.withLock { state in
            state.ended = ending
            defer { state.waiters = [] }
            return (state.terminationHandler, state.waiters)
        }
        ended.lock()
        ended.broadcast()
        ended.unlock()
        for waiter in waiters { waiter.continuation.resume() }
        handler?(self)
    }

    #if canImport(Glibc)
        /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run time: its header
        /// declares it only under `_GNU_SOURCE`, which Swift's Glibc module is not built with.
        private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        private static let closeFrom: CloseFrom? = {
            guard let handle = dlopen(nil, RTLD_NOW),
                let address = dlsym(handle, "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(address, to: CloseFrom.self)
        }()
    #endif
}
