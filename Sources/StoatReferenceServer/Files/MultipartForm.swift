#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `multipart/form-data` body read whole (RFC 7578), as the file server's `TypedMultipart` reads an upload:
/// the parts' names, file names, content types and bytes. Pure: it parses bytes it is given.
struct MultipartForm: Sendable {
    /// One part of the form.
    struct Part: Sendable {
        /// The form field's name (`Content-Disposition: form-data; name="…"`).
        var name: String
        /// The file name, when the part is a file (`filename="…"`).
        var filename: String?
        /// The part's `Content-Type`, when given.
        var contentType: String?
        /// The part's bytes.
        var body: [UInt8]
    }

    /// Why a body is not a form.
    struct Malformed: Error, Sendable, Equatable {
        var reason: String
    }

    /// The parts, in order.
    var parts: [Part]

    /// The boundary a `Content-Type: multipart/form-data; boundary=…` header names, or nil when the header is
    /// not a form's or names none.
    static func boundary(contentType: String?) -> String? {
        guard let contentType else { return nil }
        let items = contentType.split(separator: ";").map { $0.trimmingWhitespace() }
        guard items.first?.lowercased() == "multipart/form-data" else { return nil }
        for item in items.dropFirst() {
            guard let equals = item.firstIndex(of: "=") else { continue }
            guard item[..<equals].trimmingWhitespace().lowercased() == "boundary" else { continue }
            var value = item[item.index(after: equals)...].trimmingWhitespace()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// Parses a whole body.
    ///
    /// - Throws: ``Malformed`` when the body does not start with the boundary, a part has no blank line after
    ///   its headers or no `Content-Disposition: form-data` name, or the closing boundary is missing.
    init(body: UnsafeRawBufferPointer, boundary: String) throws(Malformed) {
        let bytes = body.bindMemory(to: UInt8.self)
        let opening = Array(("--" + boundary).utf8)
        let delimiter = Array(("\r\n--" + boundary).utf8)
        guard bytes.count >= opening.count, Array(bytes[0..<opening.count]) == opening else {
            throw Malformed(reason: "the body does not start with the boundary")
        }
        var position = opening.count
        var parts: [Part] = []
        while true {
            // After a boundary: `--` ends the form, CRLF starts a part.
            guard position + 2 <= bytes.count else { throw Malformed(reason: "the closing boundary is missing") }
            if bytes[position] == UInt8(ascii: "-"), bytes[position + 1] == UInt8(ascii: "-") { break }
            guard bytes[position] == 13, bytes[position + 1] == 10 else {
                throw Malformed(reason: "a boundary is not followed by a line end")
            }
            position += 2
            guard let headersEnd = Self.search(Array("\r\n\r\n".utf8), in: bytes, from: position) else {
                throw Malformed(reason: "a part's headers do not end")
            }
            let headers = String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<headersEnd]), as: UTF8.self)
            let contentStart = headersEnd + 4
            guard let contentEnd = Self.search(delimiter, in: bytes, from: contentStart) else {
                throw Malformed(reason: "the closing boundary is missing")
            }
            parts.append(try Self.part(headers: headers, body: Array(bytes[contentStart..<contentEnd])))
            position = contentEnd + delimiter.count
        }
        self.parts = parts
    }

    /// The first part named `name`.
    func part(named name: String) -> Part? {
        parts.first { $0.name == name }
    }

    private static func part(headers: String, body: [UInt8]) throws(Malformed) -> Part {
        var name: String?
        var filename: String?
        var contentType: String?
        for line in headers.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].trimmingWhitespace().lowercased()
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            switch field {
            case "content-disposition":
                let items = value.split(separator: ";").map { $0.trimmingWhitespace() }
                guard items.first?.lowercased() == "form-data" else {
                    throw Malformed(reason: "a part is not form-data")
                }
                for item in items.dropFirst() {
                    guard let equals = item.firstIndex(of: "=") else { continue }
                    let key = item[..<equals].trimmingWhitespace().lowercased()
                    var text = item[item.index(after: equals)...].trimmingWhitespace()
                    if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
                        text = String(text.dropFirst().dropLast())
                    }
                    if key == "name" { name = text }
                    if key == "filename" { filename = text }
                }
            case "content-type":
                contentType = value
            default:
                continue
            }
        }
        guard let name else { throw Malformed(reason: "a part has no name") }
        return Part(name: name, filename: filename, contentType: contentType, body: body)
    }

    /// The index of the first occurrence of `needle` in `haystack` at or after `start`: `memchr` for its first
    /// byte, then a comparison, so a 20 MB file is searched at memory speed.
    private static func search(_ needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let first = needle.first, let base = haystack.baseAddress else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            guard let found = memchr(base + index, Int32(first), haystack.count - index - needle.count + 1) else {
                return nil
            }
            let offset = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + offset, needle, needle.count) == 0 { return offset }
            index = offset + 1
        }
        return nil
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
