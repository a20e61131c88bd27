import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The bytes the process's allocator has handed out and not been given back: the live heap, beside the
/// resident memory, which also holds what was freed and kept (fragmentation) and code and stacks.
///
/// From glibc's `malloc_info` (looked up at run time, as Swift's Glibc module does not declare it, nor
/// `mallinfo2`): what its arenas took from the system, less their free chunks (fast bins, other bins and
/// each arena's top), plus the chunks it mapped on their own — `mallinfo2`'s `uordblks + hblkhd`.
enum LiveHeap {
    /// The live heap in bytes; `nil` where glibc's `malloc_info` is not there.
    static func bytes() -> Int? {
        #if os(Linux)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else { return nil }
            let mallocInfo = unsafeBitCast(
                symbol, to: (@convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32).self)
            var buffer: UnsafeMutablePointer<CChar>?
            var size = 0
            guard let stream = open_memstream(&buffer, &size) else { return nil }
            let status = mallocInfo(0, stream)
            fclose(stream)
            defer { free(buffer) }
            guard status == 0, let buffer else { return nil }
            return bytes(inReport: String(cString: buffer))
        #else
            return nil
        #endif
    }

    /// The live heap a `malloc_info` report states: its totals (after the last `</heap>`) — `system current`
    /// less `total fast` and `total rest`, plus `total mmap`. `nil` when a total is missing or the free bytes
    /// exceed the system's.
    static func bytes(inReport report: String) -> Int? {
        let totals = report.range(of: "</heap>", options: .backwards).map { report[$0.upperBound...] } ?? report[...]
        func size(_ element: String) -> Int? {
            guard let start = totals.range(of: "<\(element) ") else { return nil }
            let rest = totals[start.upperBound...]
            guard let attribute = rest.range(of: "size=\""),
                let end = rest[attribute.upperBound...].firstIndex(of: "\"")
            else { return nil }
            return Int(rest[attribute.upperBound..<end])
        }
        guard let system = size(#"system type="current""#), let fast = size(#"total type="fast""#),
            let rest = size(#"total type="rest""#), let mapped = size(#"total type="mmap""#), fast + rest <= system
        else { return nil }
        return system - fast - rest + mapped
    }
}
