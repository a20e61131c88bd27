import Foundation
import LifelineTerminal
import TestProcess
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real pseudo-terminal with the test probe (`Tests/TerminalProbe`) running in it: what it writes goes through a
/// ``TestTerminalEmulator``; the tests wait for screen contents and output, never for durations.
final class PTYSession: @unchecked Sendable {
    // Safe: `output` and `emulator` are touched under `condition` only; the rest is immutable after init.
    let master: Int32
    let slave: Int32
    let process = ChildProcess()
    private let condition = NSCondition()
    private var output: [UInt8] = []
    private var emulator = TestTerminalEmulator(size: TerminalSize(columns: 100, rows: 30))
    private var readerDone = false
    private let wake: [Int32]

    init(arguments: [String] = []) throws {
        master = PseudoTerminal.openMaster(O_RDWR | O_NOCTTY)
        try #require(
            master >= 0 && PseudoTerminal.grant(master) == 0 && PseudoTerminal.unlock(master) == 0, "no pseudo-terminal"
        )
        let name = try #require(PseudoTerminal.slaveName(master).map { String(cString: $0) })
        slave = open(name, O_RDWR | O_NOCTTY)
        try #require(slave >= 0)
        var window = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &window)
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        wake = ends
        process.executableURL = try Self.probe
        process.arguments = arguments
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = FileHandle.standardError
        startReader()
        try process.run()
    }

    deinit {
        var byte: UInt8 = 0
        _ = write(wake[1], &byte, 1)
        condition.lock()
        while !readerDone { condition.wait() }
        condition.unlock()
        close(wake[0])
        close(wake[1])
        close(master)
        close(slave)
    }

    static var probe: URL {
        get throws {
            var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            for _ in 0..<3
            where !FileManager.default.fileExists(atPath: folder.appendingPathComponent("TerminalProbe").path) {
                folder.deleteLastPathComponent()
            }
            let binary = folder.appendingPathComponent("TerminalProbe")
            try #require(FileManager.default.isExecutableFile(atPath: binary.path), "no probe near \(folder.path)")
            return binary
        }
    }

    private func startReader() {
        let master = master
        let wakeReader = wake[0]
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                var descriptors = [
                    pollfd(fd: master, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
                ]
                if poll(&descriptors, 2, -1) < 0 {
                    if errno == EINTR { continue }
                    break
                }
                if descriptors[1].revents != 0 { break }
                let count = read(master, &buffer, buffer.count)
                if count <= 0 {
                    if count < 0, errno == EINTR { continue }
                    break
                }
                condition.lock()
                output.append(contentsOf: buffer[0..<count])
                emulator.feed(Array(buffer[0..<count]))
                condition.broadcast()
                condition.unlock()
            }
            condition.lock()
            readerDone = true
            condition.broadcast()
            condition.unlock()
        }.start()
    }

    /// Waits (on a thread of its own) until `predicate` holds for the output and screen, up to a generous deadline.
    func wait(
        for what: String, _ predicate: @escaping @Sendable (_ output: [UInt8], _ screen: [String]) -> Bool
    ) async throws {
        let met = try await Self.onOwnThread { [self] in
            let deadline = Date().addingTimeInterval(TimeInterval(Duration.failureBound.components.seconds))
            condition.lock()
            defer { condition.unlock() }
            while true {
                let screen = (0..<emulator.rows).map { emulator.text(row: $0) }
                if predicate(output, screen) { return true }
                if readerDone || !condition.wait(until: deadline) { return predicate(output, screen) }
            }
        }
        try #require(met, "waited for \(what); screen:\n\(screenText)")
    }

    var screenText: String {
        condition.lock()
        defer { condition.unlock() }
        return (0..<emulator.rows).map { emulator.text(row: $0) }.joined(separator: "\n")
    }

    var outputText: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    func waitForScreen(_ text: String) async throws {
        try await wait(for: text) { _, screen in screen.contains { $0.contains(text) } }
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    func settings() -> termios {
        var settings = termios()
        _ = tcgetattr(slave, &settings)
        return settings
    }

    var isRaw: Bool { settings().c_lflag & tcflag_t(ECHO | ICANON) == 0 }
    var isCooked: Bool { settings().c_lflag & tcflag_t(ECHO | ICANON) == tcflag_t(ECHO | ICANON) }

    func exit() async throws -> (ChildProcess.TerminationReason, Int32) {
        let process = process
        return try await Self.onOwnThread {
            process.waitUntilExit()
            return (process.terminationReason, process.terminationStatus)
        }
    }

    static func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}

/// The C library's pseudo-terminal calls (`posix_openpt`, `grantpt`, `unlockpt`, `ptsname`), looked up at run
/// time: glibc declares them only under `_XOPEN_SOURCE`, which Swift's Glibc module is not built with.
enum PseudoTerminal {
    typealias Open = @convention(c) (Int32) -> Int32
    typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    static func symbol<T>(_ name: String, as type: T.Type) -> T {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else {
            preconditionFailure("the C library has no \(name)")
        }
        return unsafeBitCast(address, to: type)
    }

    static let openMaster = symbol("posix_openpt", as: Open.self)
    static let grant = symbol("grantpt", as: Open.self)
    static let unlock = symbol("unlockpt", as: Open.self)
    static let slaveName = symbol("ptsname", as: Name.self)
}

@Suite("Terminal in a pseudo-terminal")
struct TerminalPTYTests {
    static let leave = "\u{1B}[?1049l"

    @Test(
        "a signal leaves the terminal restored: cooked mode, echo on, the alternate screen left",
        arguments: [SIGTERM, SIGINT, SIGHUP])
    func signalRestores(signal: Int32) async throws {
        let session = try PTYSession()
        try await session.waitForScreen("ready 80x24")
        #expect(session.isRaw, "the probe entered raw mode")
        #expect(session.outputText.contains("\u{1B}[?1049h"))
        kill(session.process.processIdentifier, signal)
        try await session.wait(for: "the alternate screen left") { output, _ in
            String(decoding: output, as: UTF8.self).contains(Self.leave)
        }
        let (reason, status) = try await session.exit()
        #expect(reason == .uncaughtSignal && status == signal, "the signal ended the process")
        #expect(session.isCooked)
    }

    @Test("quitting and a thrown error both leave the terminal restored")
    func quitAndErrorRestore() async throws {
        for (key, expectedStatus) in [("q", Int32(0)), ("t", 3)] {
            let session = try PTYSession()
            try await session.waitForScreen("ready")
            #expect(session.isRaw)
            session.send(key)
            let (reason, status) = try await session.exit()
            #expect(reason == .exit && status == expectedStatus)
            try await session.wait(for: "the alternate screen left") { output, _ in
                String(decoding: output, as: UTF8.self).contains(Self.leave)
            }
            #expect(session.isCooked)
            #expect(session.outputText.hasSuffix(String(decoding: TerminalOptions.leaveSequence, as: UTF8.self)))
        }
    }

    @Test("keys, a lone ESC, a paste and the mouse reach the program as events, SIGWINCH as a resize")
    func events() async throws {
        let session = try PTYSession()
        try await session.waitForScreen("ready 80x24")
        #expect(session.outputText.contains("\u{1B}[?1006h"))
        session.send("\u{1B}[A")
        try await session.waitForScreen("key up 0")
        session.send("\u{03}")
        try await session.waitForScreen("key character(\"c\") 4")
        session.send("\u{1B}")
        try await session.waitForScreen("key escape 0")
        session.send("\u{1B}[200~two\rlines\u{1B}[201~")
        try await session.waitForScreen("paste \"two\\nlines\"")
        session.send("\u{1B}[<64;5;6M")
        try await session.waitForScreen("mouse wheelUp 5 4")
        var window = winsize(ws_row: 30, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(session.master, UInt(TIOCSWINSZ), &window)
        kill(session.process.processIdentifier, SIGWINCH)
        try await session.waitForScreen("resize 100x30")
        session.send("q")
        _ = try await session.exit()
    }

    @Test("without the mouse option the mouse is never turned on")
    func noMouse() async throws {
        let session = try PTYSession(arguments: ["--no-mouse"])
        try await session.waitForScreen("ready")
        session.send("q")
        _ = try await session.exit()
        try await session.wait(for: "the end") { output, _ in
            String(decoding: output, as: UTF8.self).contains(Self.leave)
        }
        #expect(!session.outputText.contains("\u{1B}[?1000h"))
        #expect(session.outputText.contains("\u{1B}[?2004h"))
    }
}
