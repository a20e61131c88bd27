import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal a full-screen program draws on: raw mode, the alternate screen, bracketed paste, the mouse (unless
/// left off) and the hidden cursor while it is active, and the terminal as it was once it is not.
///
/// Creating one saves the terminal's settings (`tcgetattr`) and enters the modes; ``restore()`` leaves them and
/// puts the settings back. It is restored on every way out the program controls: ``restore()`` (idempotent) or
/// the end of ``withTerminal(options:isolation:_:)``'s scope, whether its body returns or throws; the process's
/// exit (`atexit`); and SIGINT, SIGTERM, SIGHUP and SIGQUIT, whose handlers restore the terminal with
/// async-signal-safe calls only (`write`, `tcsetattr`) and then re-raise the signal with its default action, so
/// the process ends as the signal asked. Only SIGKILL (and a crash) leave it as it was: `reset` repairs that.
///
/// Input arrives on ``events``: a thread of its own blocks in `poll` on the terminal and a wake-up pipe and feeds an
/// ``InputParser``; it wakes only when bytes come, or once after a lone ESC for the ``TerminalOptions/escapeTimeout``,
/// so an idle program costs no CPU. SIGWINCH arrives through a dispatch signal source as ``InputEvent/resize(_:)``
/// (and the next ``draw(_:cursor:changes:)`` repaints the whole screen). One terminal is active in a process at a time.
public final class Terminal: @unchecked Sendable {
    // Safe to send: the descriptors and the stream are immutable; `renderer` and `isActive` are read and written
    // under `lock` only; the reader thread owns its parser and touches nothing else of the instance.

    /// The terminal's input events: keys, pastes, mouse events and resizes, in order. It finishes when the terminal
    /// is restored or its input closes.
    public let events: AsyncStream<InputEvent>
    private let continuation: AsyncStream<InputEvent>.Continuation
    private let input: Int32
    private let output: Int32
    private let wakeWriter: Int32
    private let lock = NSLock()
    private var renderer = Renderer()
    private var isActive = true
    private var resizeSource: (any DispatchSourceSignal)?
    private var previousActions: [(Int32, sigaction)] = []

    /// The signals whose handlers restore the terminal before the process ends.
    public static let restoringSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Takes over the terminal: saves its settings, enters raw mode and the modes of `options`, installs the
    /// restoring signal handlers and starts the input reader.
    ///
    /// - Parameters:
    ///   - options: What to turn on (the mouse, the escape timeout).
    ///   - input: The terminal's input descriptor (standard input, 0, by default).
    ///   - output: The terminal's output descriptor (standard output, 1, by default).
    /// - Throws: ``TerminalError``: ``TerminalError/Code/notATerminal`` when `input` is no terminal,
    ///   ``TerminalError/Code/alreadyActive`` when another terminal of the process is active,
    ///   ``TerminalError/Code/settingsFailed``, ``TerminalError/Code/readerFailed`` or
    ///   ``TerminalError/Code/writeFailed`` when the system refuses; the terminal is left as it was.
    public init(
        options: TerminalOptions = .standard, input: Int32 = 0, output: Int32 = 1
    ) throws(TerminalError) {
        guard isatty(input) == 1 else { throw TerminalError(.notATerminal, "the input is not a terminal") }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else {
            throw TerminalError(.settingsFailed, "reading the terminal's settings failed", systemError: errno)
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            throw TerminalError(.readerFailed, "making the reader's wake-up pipe failed", systemError: errno)
        }
        guard SavedTerminal.claim(input: input, output: output, settings: saved) else {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw TerminalError(.alreadyActive, "another terminal of this process is active")
        }
        self.input = input
        self.output = output
        wakeWriter = pipeEnds[1]
        (events, continuation) = AsyncStream.makeStream(of: InputEvent.self)

        var raw = saved
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST | ONLCR)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
            let code = errno
            SavedTerminal.release()
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw TerminalError(.settingsFailed, "entering raw mode failed", systemError: code)
        }
        previousActions = Self.restoringSignals.map { ($0, SavedTerminal.installHandler(for: $0)) }
        do {
            try OutputWriter.write(options.enterSequence, to: output)
        } catch {
            restore()
            close(pipeEnds[0])
            throw error
        }
        startReader(wakeReader: pipeEnds[0], options: options)
        startResizeSource()
    }

    deinit { restore() }

    /// Runs `body` with the terminal taken over, and restores it when `body` returns or throws.
    ///
    /// - Parameters:
    ///   - options: What to turn on.
    ///   - isolation: The caller's actor, which `body` runs on.
    ///   - body: The program: draws frames and reads ``events``.
    /// - Returns: What `body` returns.
    /// - Throws: ``TerminalError`` when the terminal cannot be taken over, or what `body` throws (after the
    ///   terminal is restored).
    public static func withTerminal<Result>(
        options: TerminalOptions = .standard, isolation: isolated (any Actor)? = #isolation,
        _ body: (Terminal) async throws -> Result
    ) async throws -> Result {
        let terminal = try Terminal(options: options)
        defer { terminal.restore() }
        return try await body(terminal)
    }

    /// The terminal's size, as `TIOCGWINSZ` reports it (80×24 if it reports none).
    public var size: TerminalSize {
        var window = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &window) == 0 || ioctl(input, UInt(TIOCGWINSZ), &window) == 0,
            window.ws_col > 0, window.ws_row > 0
        {
            return TerminalSize(columns: Int(window.ws_col), rows: Int(window.ws_row))
        }
        return TerminalSize(columns: 80, rows: 24)
    }

    /// Draws `grid`: the cells changed since the last frame, or the whole screen after a resize (see
    /// ``Renderer``), written in full before it returns.
    ///
    /// - Parameters:
    ///   - grid: The frame.
    ///   - cursor: Where the frame leaves the cursor (the composer's insertion point), hidden by default.
    ///   - changes: What the frame's builder knows changed since the frame before, if anything: only those rows are
    ///     compared (see ``Renderer/render(_:cursor:changes:into:)``).
    /// - Throws: ``TerminalError`` with ``TerminalError/Code/writeFailed`` when the terminal refuses the bytes.
    public func draw(_ grid: Grid, cursor: Cursor = .hidden, changes: FrameChanges? = nil) throws(TerminalError) {
        lock.lock()
        defer { lock.unlock() }
        guard isActive else { return }
        var bytes: [UInt8] = []
        renderer.render(grid, cursor: cursor, changes: changes, into: &bytes)
        guard !bytes.isEmpty else { return }
        do {
            try OutputWriter.write(bytes, to: output)
        } catch {
            // The terminal may hold part of the frame: the next one repaints the whole screen.
            renderer.invalidate()
            throw error
        }
    }

    /// Makes the next ``draw(_:cursor:changes:)`` repaint the whole screen (after something else wrote on it).
    public func invalidate() {
        lock.lock()
        renderer.invalidate()
        lock.unlock()
    }

    /// Leaves the modes, puts the saved settings back, restores the previous signal handlers and stops the input
    /// reader (``events`` finishes). Calling it again does nothing.
    public func restore() {
        lock.lock()
        defer { lock.unlock() }
        guard isActive else { return }
        isActive = false
        resizeSource?.cancel()
        resizeSource = nil
        SavedTerminal.restoreNow()
        for (signal, action) in previousActions {
            var action = action
            sigaction(signal, &action, nil)
        }
        SavedTerminal.release()
        var byte: UInt8 = 1
        _ = Glibc_or_Darwin_write(wakeWriter, &byte, 1)
        close(wakeWriter)
        continuation.finish()
    }

    private func startReader(wakeReader: Int32, options: TerminalOptions) {
        let input = input
        let continuation = continuation
        let (seconds, attoseconds) = options.escapeTimeout.components
        let timeout = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        let thread = Thread {
            var parser = InputParser()
            var buffer = [UInt8](repeating: 0, count: 4096)
            reading: while true {
                var descriptors = [
                    pollfd(fd: input, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&descriptors, 2, parser.isAwaitingMore ? timeout : -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    break
                }
                if descriptors[1].revents != 0 { break }
                if ready == 0 {
                    for event in parser.timeoutExpired() { continuation.yield(event) }
                    continue
                }
                let count = read(input, &buffer, buffer.count)
                if count > 0 {
                    for event in parser.parse(buffer[0..<count]) { continuation.yield(event) }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    break reading
                }
            }
            close(wakeReader)
            continuation.finish()
        }
        thread.name = "LifelineTerminal input"
        thread.start()
    }

    private func startResizeSource() {
        signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler { [weak self] in
            guard let self else { return }
            self.invalidate()
            self.continuation.yield(.resize(self.size))
        }
        source.resume()
        resizeSource = source
    }
}

#if canImport(Glibc)
    private let Glibc_or_Darwin_write = Glibc.write
#elseif canImport(Darwin)
    private let Glibc_or_Darwin_write = Darwin.write
#endif

/// The saved settings of the active terminal, where a signal handler and an `atexit` hook can reach them: plain
/// global storage read with async-signal-safe calls only.
private enum SavedTerminal {
    // Written only while no handler is installed (claim) or by the one restoring call that wins `active`;
    // signal handlers read them. `nonisolated(unsafe)`: a signal handler can take no lock.
    nonisolated(unsafe) static var active = false
    nonisolated(unsafe) static var claimed = false
    nonisolated(unsafe) static var input: Int32 = -1
    nonisolated(unsafe) static var output: Int32 = -1
    nonisolated(unsafe) static var settings = termios()
    nonisolated(unsafe) static var exitHookInstalled = false
    // The leave sequence in memory of its own, allocated once: a handler must not touch Swift's lazy globals.
    nonisolated(unsafe) static var leave: UnsafeMutableBufferPointer<UInt8> = {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: TerminalOptions.leaveSequence.count)
        _ = buffer.initialize(from: TerminalOptions.leaveSequence)
        return buffer
    }()
    private static let lock = NSLock()

    static func claim(input: Int32, output: Int32, settings: termios) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !claimed else { return false }
        _ = leave.count
        claimed = true
        self.input = input
        self.output = output
        self.settings = settings
        active = true
        if !exitHookInstalled {
            exitHookInstalled = true
            atexit { SavedTerminal.restoreNow() }
        }
        return true
    }

    static func release() {
        lock.lock()
        claimed = false
        lock.unlock()
    }

    /// Leaves the modes and puts the saved settings back, once: async-signal-safe (`write`, `tcsetattr`).
    static func restoreNow() {
        guard active else { return }
        active = false
        var offset = 0
        while offset < leave.count {
            let written = Glibc_or_Darwin_write(output, leave.baseAddress! + offset, leave.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        _ = tcsetattr(input, TCSAFLUSH, &settings)
    }

    /// Installs the restoring handler for `signal` and returns the action it replaces.
    static func installHandler(for signal: Int32) -> sigaction {
        var action = sigaction()
        #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = restoreThenReraise
        #elseif canImport(Darwin)
            action.__sigaction_u.__sa_handler = restoreThenReraise
        #endif
        sigemptyset(&action.sa_mask)
        // The default action is back as the handler starts, so the re-raised signal ends the process.
        action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)
        var previous = sigaction()
        sigaction(signal, &action, &previous)
        return previous
    }
}

/// The restoring signal handler: the terminal back as it was, then the signal again with its default action.
private func restoreThenReraise(_ signal: Int32) {
    SavedTerminal.restoreNow()
    raise(signal)
}
