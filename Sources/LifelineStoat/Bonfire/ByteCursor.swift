/// An error a ``ByteCursor`` throws when a read runs past the end of its bytes: each reader keeps its own
/// error type (``JSONScanError``, which ``ReadyReader`` requires, or ``MessagePackError``) and code for it.
protocol ByteCursorError: Error {
    /// The error for a read of bytes that end before it does, noticed at `offset`.
    static func endsEarly(at offset: Int) -> Self
}

/// A forward-only cursor over a frame's bytes with bounds-checked, big-endian reads: the one under
/// ``MessagePackReader`` and ``MessagePack``'s transcoder, generic over the error each throws.
///
/// Every read checks the bytes left first and throws `Failure.endsEarly(at:)` rather than read past the end;
/// a length the frame states is compared with what is left before it is used. The buffer must outlive it.
struct ByteCursor<Failure: ByteCursorError> {
    /// The frame.
    let bytes: UnsafeRawBufferPointer
    /// The offset of the next byte to read.
    var offset = 0

    /// A cursor at the start of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// How many bytes are left to read.
    @inline(__always)
    var remaining: Int { bytes.count - offset }

    /// The next byte, or 0xC1 (a byte MessagePack never uses, so invalid everywhere) at the end.
    @inline(__always)
    func peek() -> UInt8 {
        offset < bytes.count ? bytes[offset] : 0xC1
    }

    /// The next byte, consumed.
    @inline(__always)
    mutating func byte() throws(Failure) -> UInt8 {
        guard offset < bytes.count else { throw .endsEarly(at: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next `count` bytes (at most eight) as a big-endian unsigned integer, consumed.
    @inline(__always)
    mutating func unsigned(_ count: Int) throws(Failure) -> UInt64 {
        guard bytes.count - offset >= count else { throw .endsEarly(at: offset) }
        var value: UInt64 = 0
        for index in 0..<count { value = value << 8 | UInt64(bytes[offset + index]) }
        offset += count
        return value
    }

    /// Skips `count` bytes, which must be there.
    @inline(__always)
    mutating func skip(_ count: UInt64) throws(Failure) {
        guard count <= UInt64(bytes.count - offset) else { throw .endsEarly(at: offset) }
        offset += Int(count)
    }
}

extension JSONScanError: ByteCursorError {
    /// The input ended too early: ``Code/unexpectedByte``, as the JSON scanner says it.
    static func endsEarly(at offset: Int) -> JSONScanError {
        JSONScanError(code: .unexpectedByte, offset: offset)
    }
}

extension MessagePackError: ByteCursorError {
    /// The input ended inside a value: ``Code/truncated``.
    static func endsEarly(at offset: Int) -> MessagePackError {
        MessagePackError(code: .truncated, offset: offset)
    }
}
