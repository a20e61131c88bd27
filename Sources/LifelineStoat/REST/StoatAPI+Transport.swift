import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension StoatAPI {
    /// A response whose body has been read, with what is needed to describe it in an error.
    struct Response {
        /// The request's method and path, for messages (never the query or a header).
        let request: String
        /// The HTTP status.
        let status: Int
        /// The response's headers.
        let headers: HTTPHeaders
        /// The whole body.
        let body: ByteBuffer

        /// Decodes the body when the status is `expected`; otherwise throws the server's error.
        func decode<Value: Decodable>(_ type: Value.Type, expecting expected: Int) throws(StoatAPIError) -> Value {
            try expect(expected)
            do {
                return try JSONDecoder().decode(Value.self, from: Data(body.readableBytesView))
            } catch {
                throw StoatAPIError(
                    .malformedResponse, message: "\(request) answered a body that is not the expected JSON",
                    status: status, underlying: error)
            }
        }

        /// Throws the server's error unless the status is one of `expected`.
        func expect(_ expected: Int...) throws(StoatAPIError) {
            guard !expected.contains(status) else { return }
            let error = try? JSONDecoder().decode(Wire.ErrorBody.self, from: Data(body.readableBytesView))
            guard let kind = error?.type else {
                throw StoatAPIError(
                    .unexpectedStatus, message: "\(request) answered HTTP \(status)", status: status)
            }
            throw StoatAPIError(
                StoatAPIError.Code.byKind[kind] ?? .unexpectedStatus, message: "\(request) answered \(kind)",
                kind: kind, location: error?.location, status: status)
        }
    }

    /// Sends a request with a JSON body.
    func send(
        _ method: HTTPMethod, url: String? = nil, path: String, token: String? = nil, body: some Encodable
    ) async throws(StoatAPIError) -> Response {
        let data: Data
        do {
            data = try JSONEncoder().encode(body)
        } catch {
            throw StoatAPIError(
                .invalidRequest, message: "\(method) \(path): the body could not be encoded", underlying: error)
        }
        return try await perform(method, url: url, path: path, token: token, body: ByteBuffer(bytes: data))
    }

    /// Sends a request without a body.
    func send(
        _ method: HTTPMethod, url: String? = nil, path: String, token: String? = nil
    ) async throws(StoatAPIError) -> Response {
        try await perform(method, url: url, path: path, token: token, body: nil)
    }

    /// Sends a request and reads the whole answer.
    ///
    /// Named apart from the `send` overloads on purpose: `ByteBuffer` is `Encodable`, so an overload taking
    /// an optional buffer would lose to the generic JSON one and recurse forever.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: The full URL; `nil` appends `path` to ``baseURL``.
    ///   - path: The path, appended to the base and named in logs and errors.
    ///   - token: The session token for `X-Session-Token`, if the call is authenticated.
    ///   - body: A JSON body, if any.
    private func perform(
        _ method: HTTPMethod, url: String?, path: String, token: String?, body: ByteBuffer?
    ) async throws(StoatAPIError) -> Response {
        let name = "\(method) \(path)"
        var request = HTTPClientRequest(url: url ?? Self.join(baseURL, path))
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Lifeline")
        if let token { request.headers.add(name: "X-Session-Token", value: token) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(body)
        }
        let metadata: Logger.Metadata = ["stoat.method": "\(method)", "stoat.path": "\(path)"]
        do {
            let deadline = NIODeadline.now() + Self.timeAmount(requestTimeout)
            let response = try await httpClient.execute(request, deadline: deadline)
            let status = Int(response.status.code)
            let collected: ByteBuffer
            do {
                collected = try await response.body.collect(upTo: maximumResponseSize)
            } catch let error as NIOTooManyBytesError {
                throw StoatAPIError(
                    .malformedResponse, message: "\(name) answered more than \(maximumResponseSize) bytes",
                    status: status, underlying: error)
            }
            logger.debug("Stoat request answered", metadata: metadata.merging(["stoat.status": "\(status)"]) { $1 })
            return Response(request: name, status: status, headers: response.headers, body: collected)
        } catch {
            let failure = error as? StoatAPIError ?? Self.transportFailure(error, request: name)
            logger.debug(
                "Stoat request failed", metadata: metadata.merging(["stoat.error": "\(failure.code)"]) { $1 })
            throw failure
        }
    }

    /// Maps an error of the HTTP client to a ``StoatAPIError``.
    static func transportFailure(_ error: any Error, request: String) -> StoatAPIError {
        if error is CancellationError {
            return StoatAPIError(.cancelled, message: "\(request) was cancelled", underlying: error)
        }
        if let error = error as? HTTPClientError {
            if error == .cancelled {
                return StoatAPIError(.cancelled, message: "\(request) was cancelled", underlying: error)
            }
            let timeouts: [HTTPClientError] = [
                .deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout, .getConnectionFromPoolTimeout,
            ]
            if timeouts.contains(error) {
                return StoatAPIError(.timeout, message: "\(request) timed out", underlying: error)
            }
            if [HTTPClientError.invalidURL, .emptyHost, .emptyScheme, .missingSocketPath].contains(error) {
                return StoatAPIError(.invalidRequest, message: "\(request): the URL is not usable", underlying: error)
            }
        }
        return StoatAPIError(.network, message: "\(request) failed on the network", underlying: error)
    }

    /// `base` followed by `path`, with exactly one slash between them.
    static func join(_ base: URL, _ path: String) -> String {
        var prefix = base.absoluteString
        while prefix.hasSuffix("/") { prefix.removeLast() }
        return path.hasPrefix("/") ? prefix + path : prefix + "/" + path
    }

    /// `component` with every byte outside RFC 3986's unreserved characters percent-encoded, for a path
    /// segment.
    static func percentEncoded(_ component: String) -> String {
        var encoded = ""
        for byte in component.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(hex[Int(byte >> 4)])
                encoded.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return encoded
    }

    /// A duration as NIO's time amount, in nanoseconds.
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .nanoseconds(Int64.max) }
        return .nanoseconds(nanoseconds.partialValue + attoseconds / 1_000_000_000)
    }
}
