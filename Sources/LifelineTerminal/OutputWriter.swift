#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes every byte of a buffer to a file descriptor, however the system takes them: a partial write goes on
/// from where it stopped, `EINTR` is retried, and `EAGAIN` (a non-blocking descriptor whose buffer is full) waits
/// with `poll` until the descriptor is writable again, so a frame is never cut short or spun on.
public enum OutputWriter {
    /// What one write call did.
    public enum Attempt: Hashable, Sendable {
        /// It wrote this many bytes (maybe fewer than asked).
        case wrote(Int)
        /// A signal interrupted it before it wrote anything (`EINTR`).
        case interrupted
        /// The descriptor is non-blocking and cannot take more now (`EAGAIN`).
        case wouldBlock
        /// It failed with this `errno`.
        case failed(Int32)
    }

    /// Writes all of `bytes` to `descriptor`.
    ///
    /// - Parameters:
    ///   - bytes: The bytes.
    ///   - descriptor: The file descriptor (a terminal, a pipe, a socket).
    /// - Throws: ``TerminalError`` with ``TerminalError/Code/writeFailed`` when the system refuses the write.
    public static func write(_ bytes: [UInt8], to descriptor: Int32) throws(TerminalError) {
        try write(bytes) { pointer, count in
            let result = systemWrite(descriptor, pointer, count)
            if result >= 0 { return .wrote(result) }
            switch errno {
            case EINTR: return .interrupted
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        } waitUntilWritable: {
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = poll(&entry, 1, -1)
        }
    }

    /// Writes all of `bytes` through `attempt`, the loop of ``write(_:to:)`` with the system call handed in (what
    /// a test uses to write a byte at a time, interrupt and refuse).
    ///
    /// - Parameters:
    ///   - bytes: The bytes.
    ///   - attempt: One write call: the bytes from a pointer, at most a count.
    ///   - waitUntilWritable: Blocks until the descriptor can take more (called after ``Attempt/wouldBlock``).
    /// - Throws: ``TerminalError`` with ``TerminalError/Code/writeFailed`` on ``Attempt/failed(_:)`` or a write
    ///   of no byte.
    public static func write(
        _ bytes: [UInt8], attempt: (UnsafeRawPointer, Int) -> Attempt, waitUntilWritable: () -> Void
    ) throws(TerminalError) {
        var failure: TerminalError?
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                switch attempt(base + offset, buffer.count - offset) {
                case .wrote(let count) where count > 0: offset += min(count, buffer.count - offset)
                case .wrote:
                    failure = TerminalError(.writeFailed, "the terminal took no byte of a write")
                    return
                case .interrupted: continue
                case .wouldBlock: waitUntilWritable()
                case .failed(let code):
                    failure = TerminalError(.writeFailed, "writing to the terminal failed", systemError: code)
                    return
                }
            }
        }
        if let failure { throw failure }
    }
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    private let systemWrite = Darwin.write
#endif
