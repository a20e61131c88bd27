import Foundation
import LifelineTerminal
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Output writer")
struct OutputWriterTests {
    @Test("partial writes, interruptions and a full buffer still write every byte, in order")
    func partialWrites() throws {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var written: [UInt8] = []
        var calls = 0
        var waits = 0
        try OutputWriter.write(bytes) { pointer, count in
            calls += 1
            switch calls % 4 {
            case 1: return .interrupted
            case 2: return .wouldBlock
            default:
                let taken = min(count, 3)
                written.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: taken))
                return .wrote(taken)
            }
        } waitUntilWritable: {
            waits += 1
        }
        #expect(written == bytes)
        #expect(waits > 100)
    }

    @Test("a failing write throws a typed error with the system's error number")
    func failure() {
        #expect(throws: TerminalError(.writeFailed, "writing to the terminal failed", systemError: EIO)) {
            try OutputWriter.write([1, 2, 3], attempt: { _, _ in .failed(EIO) }, waitUntilWritable: {})
        }
        #expect(throws: TerminalError.self) { try OutputWriter.write([1], to: -1) }
    }

    @Test("a non-blocking pipe whose buffer fills mid-write gets all of a large write once a reader drains it")
    func nonBlockingPipe() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (reader, writer) = (ends[0], ends[1])
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let received = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask {
                try await PTYSession.onOwnThread {
                    var received: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 997)
                    while true {
                        let count = read(reader, &buffer, buffer.count)
                        if count <= 0 { return received }
                        received.append(contentsOf: buffer[0..<count])
                    }
                }
            }
            group.addTask {
                try await PTYSession.onOwnThread {
                    try OutputWriter.write(bytes, to: writer)
                    close(writer)
                    return nil
                }
            }
            var received: [UInt8] = []
            for try await result in group { if let result { received = result } }
            return received
        }
        close(reader)
        #expect(received == bytes)
    }
}
