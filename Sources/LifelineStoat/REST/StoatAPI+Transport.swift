import AsyncHTTPClient
import Lifeline
import LifelineCore
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
        /// From sending the request to receiving the whole answer, on the API's clock.
        var roundTrip: Duration = .zero

        /// Decodes the body when the status is `expected`; otherwise throws the server's error.
        func decode<Value: Decodable>(_ type: Value.Type, expecting expected: Int) throws(StoatAPIError) -> Value {
            try expect(expected)
            do {
                return try JSONDecoder().decode(Value.self, from: Data(body.readableBytesView))
            } catch {
                throw StoatAPIError(
                    code: .malformedResponse, message: "\(request) answered a body that is not the expected JSON",
                    status: status, cause: error)
            }
        }

        /// Throws the server's error unless the status is one of `expected`.
        func expect(_ expected: Int...) throws(StoatAPIError) {
            guard !expected.contains(status) else { return }
            throw StoatAPIError.refusal(status: status, body: Data(body.readableBytesView), request: request)
        }
    }

    /// What a request carries.
    enum Payload: Sendable {
        /// Nothing.
        case none
        /// A JSON body.
        case json(ByteBuffer)
        /// A streamed body of a known length and type (an upload), made afresh for each attempt (a redirect
        /// that repeats it, a retry after a `429`).
        case stream(contentType: String, length: Int64, make: @Sendable () -> HTTPClientRequest.Body)
    }

    /// Where a call may go and what it may bring back, beyond the API's defaults.
    struct Reach: Sendable {
        /// The origins besides the API's own that may receive the call's token: the file server's, for its
        /// calls.
        var tokenOrigins: [Origin] = []
        /// The `Accept` header.
        var accept = "application/json"
        /// The largest body read; ``maximumResponseSize`` when nil.
        var maximumResponseSize: Int?
    }

    /// Sends a request with a JSON body.
    func send(
        _ method: HTTPMethod, url: String? = nil, path: String, auth: StoatAuthorization? = nil,
        headers: [(String, String)] = [], body: some Encodable
    ) async throws(StoatAPIError) -> Response {
        let data: Data
        do {
            data = try JSONEncoder().encode(body)
        } catch {
            throw StoatAPIError(
                code: .invalidRequest, message: "\(method) \(Self.pathOnly(path)): the body could not be encoded",
                cause: error)
        }
        return try await perform(
            method, url: url, path: path, auth: auth, headers: headers, payload: .json(ByteBuffer(bytes: data)))
    }

    /// Sends a request without a body.
    func send(
        _ method: HTTPMethod, url: String? = nil, path: String, auth: StoatAuthorization? = nil,
        headers: [(String, String)] = []
    ) async throws(StoatAPIError) -> Response {
        try await perform(method, url: url, path: path, auth: auth, headers: headers, payload: .none)
    }

    /// The most same-origin redirects one call follows.
    static let maximumRedirects = 5
    /// The most `429`s one call waits out before it surfaces ``StoatAPIErrorCode/rateLimited``.
    static let maximumRateLimitRetries = 5

    /// Sends a request and reads the whole answer, honouring the rate limits and refusing redirects that
    /// leave the origin.
    ///
    /// Named apart from the `send` overloads on purpose: `ByteBuffer` is `Encodable`, so an overload taking
    /// an optional buffer would lose to the generic JSON one and recurse forever.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: The full URL; `nil` appends `path` to ``baseURL``.
    ///   - path: The path (and query), appended to the base; its path is named in logs and errors.
    ///   - auth: The token header, if the call is authenticated.
    ///   - headers: More headers (`Idempotency-Key`).
    ///   - payload: The body, if any.
    ///   - reach: The origins besides the API's that may receive the token, the `Accept` header, the largest
    ///     answer.
    func perform(
        _ method: HTTPMethod, url: String?, path: String, auth: StoatAuthorization?, headers: [(String, String)],
        payload: Payload, reach: Reach = Reach()
    ) async throws(StoatAPIError) -> Response {
        let name = "\(method) \(Self.pathOnly(path))"
        let metadata: Logger.Metadata = ["stoat.method": "\(method)", "stoat.path": "\(Self.pathOnly(path))"]
        guard let server else {
            throw StoatAPIError(
                code: .invalidRequest, message: "\(name): the API's base URL is not an http or https URL with a host")
        }
        if let issuer = auth?.issuer, issuer != server {
            throw StoatAPIError(
                code: .foreignCredentials,
                message: "\(name): the session was issued by \(issuer), not by \(server); its token is not sent")
        }
        // A full URL (the health endpoint's) is another host's: no token travels there, unless it is the file
        // server `GET /` named, for the file server's own calls.
        if auth != nil, let url {
            let origin = URL(string: url).flatMap(Origin.init)
            guard let origin, origin == Origin(baseURL) || reach.tokenOrigins.contains(origin) else {
                throw StoatAPIError(
                    code: .foreignCredentials,
                    message: "\(name): a token is sent only to the API's own origin and its file server")
            }
        }
        do {
            return try await limited(
                method, url: url ?? Self.join(baseURL, path), name: name, auth: auth,
                headers: headers, payload: payload, reach: reach, metadata: metadata)
        } catch {
            logger.debug(
                "Stoat request failed", metadata: metadata.merging(["stoat.error": "\(error.code)"]) { $1 })
            throw error
        }
    }

    /// How long an exchange may take on the wall clock when the API's clock is a test's, which does not measure it.
    static let exchangeBackstop: Duration = .seconds(300)

    /// Runs the call within its deadline (``requestTimeout`` on the API's clock): waits for an empty bucket
    /// to reset before sending, and waits out each `429`, as long as the wait fits the deadline.
    private func limited(
        _ method: HTTPMethod, url: String, name: String, auth: StoatAuthorization?, headers: [(String, String)],
        payload: Payload, reach: Reach, metadata: Logger.Metadata
    ) async throws(StoatAPIError) -> Response {
        let deadline = timer.elapsed() + requestTimeout
        let route = StoatRateLimiter.Route(origin: URL(string: url).flatMap(Origin.init)?.name ?? url, name: name)
        var rateLimitRetries = 0
        while true {
            let sent = timer.elapsed()
            if let wait = rateLimiter.reserve(route: route, now: sent) {
                // Nothing was sent, so the error (if the wait does not fit) has no status.
                try await self.wait(wait, before: deadline, status: nil, request: name, metadata: metadata)
                continue
            }
            guard deadline > sent else {
                throw StoatAPIError(code: .timeout, message: "\(name) timed out")
            }
            // On the runtime's clock the exchange gets what is left of the deadline. A test's clock does not measure
            // the exchange's wall time (it moves only when told to), so its durations cannot bound it: the
            // exchange then has a wall-clock backstop of its own, and the deadline still rules every wait.
            let left = timer.measuresWallTime ? deadline - sent : max(deadline - sent, Self.exchangeBackstop)
            var response = try await exchange(
                method, url: url, name: name, auth: auth, headers: headers, payload: payload, reach: reach,
                timeout: left, metadata: metadata)
            let now = timer.elapsed()
            response.roundTrip = now - sent
            let bucket = response.headers.first(name: "X-RateLimit-Bucket")
            rateLimiter.record(
                route: route, bucket: bucket,
                remaining: response.headers.first(name: "X-RateLimit-Remaining").flatMap(StoatRateLimiter.calls),
                resetAfter: response.headers.first(name: "X-RateLimit-Reset-After").flatMap(StoatRateLimiter.wait),
                now: now)
            guard response.status == 429, let retryAfter = Self.rateLimitWait(response) else { return response }
            rateLimiter.exhausted(route: route, bucket: bucket, retryAfter: retryAfter, now: now)
            rateLimitRetries += 1
            guard rateLimitRetries <= Self.maximumRateLimitRetries else {
                throw StoatAPIError(
                    code: .rateLimited, message: "\(name) was rate limited \(rateLimitRetries) times", status: 429,
                    retryAfter: retryAfter)
            }
            try await self.wait(retryAfter, before: deadline, status: 429, request: name, metadata: metadata)
        }
    }

    /// How long a `429` asks to wait: the rate limiter's `{"retry_after": ms}`, else its `Reset-After`
    /// header, and at least a millisecond — stoatchat refills a bucket only once its clock is past the reset,
    /// so at that very millisecond it answers `retry_after: 0` — and at most ``StoatRateLimiter/longestWait``.
    /// `nil` for a `429` that is a refusal with a kind (`InSlowmode`): that is the caller's to handle.
    private static func rateLimitWait(_ response: Response) -> Duration? {
        statedRateLimitWait(response).map { max($0, .milliseconds(1)) }
    }

    private static func statedRateLimitWait(_ response: Response) -> Duration? {
        struct Body: Decodable {
            var type: String?
            var retryAfter: Double?
            enum CodingKeys: String, CodingKey {
                case type
                case retryAfter = "retry_after"
            }
        }
        let body = try? JSONDecoder().decode(Body.self, from: Data(response.body.readableBytesView))
        guard body?.type == nil else { return nil }
        if let wait = body?.retryAfter.flatMap(StoatRateLimiter.wait(milliseconds:)) { return wait }
        return response.headers.first(name: "X-RateLimit-Reset-After").flatMap(StoatRateLimiter.wait)
    }

    /// Sleeps `wait` on the API's clock, or throws ``StoatAPIErrorCode/rateLimited`` (with `status`) at once
    /// when the wait would end after `deadline`.
    private func wait(
        _ wait: Duration, before deadline: Duration, status: Int?, request: String, metadata: Logger.Metadata
    ) async throws(StoatAPIError) {
        let now = timer.elapsed()
        guard now + wait <= deadline else {
            throw StoatAPIError(
                code: .rateLimited, message: "\(request) is rate limited for longer than its deadline allows",
                status: status, retryAfter: wait)
        }
        logger.debug(
            "Stoat request waits for its rate limit",
            metadata: metadata.merging(["stoat.wait": "\(wait)"]) { $1 })
        do {
            try await timer.sleepUntil(now + wait)
        } catch {
            throw StoatAPIError(code: .cancelled, message: "\(request) was cancelled", cause: error)
        }
    }

    /// One exchange with the server, following same-origin redirects and refusing every other.
    private func exchange(
        _ method: HTTPMethod, url: String, name: String, auth: StoatAuthorization?, headers: [(String, String)],
        payload: Payload, reach: Reach, timeout: Duration, metadata: Logger.Metadata
    ) async throws(StoatAPIError) -> Response {
        var method = method
        var payload = payload
        var url = url
        let maximumResponseSize = reach.maximumResponseSize ?? self.maximumResponseSize
        var redirects = 0
        let deadline = NIODeadline.now() + Self.timeAmount(timeout)
        while true {
            var request = HTTPClientRequest(url: url)
            request.method = method
            request.tlsConfiguration = tlsConfiguration
            request.headers.add(name: "Accept", value: reach.accept)
            request.headers.add(name: "User-Agent", value: "Lifeline")
            if let auth { request.headers.add(name: auth.headerName, value: auth.token) }
            for (header, value) in headers { request.headers.add(name: header, value: value) }
            switch payload {
            case .none:
                break
            case .json(let body):
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(body)
            case .stream(let contentType, _, let make):
                request.headers.add(name: "Content-Type", value: contentType)
                request.body = make()
            }
            let response: HTTPClientResponse
            let collected: ByteBuffer
            do {
                response = try await httpClient.execute(request, deadline: deadline)
                // A client that follows redirects itself (an app's own, not made with
                // `httpClientConfiguration()`) has already sent the request elsewhere: refuse its answer.
                guard response.history.count <= 1 else {
                    throw StoatAPIError(
                        code: .redirectRefused,
                        message: "\(name) was redirected by an HTTP client that follows redirects; "
                            + "make it with StoatAPI.httpClientConfiguration()")
                }
                collected = try await response.body.collect(upTo: maximumResponseSize)
            } catch let error as StoatAPIError {
                throw error
            } catch let error as NIOTooManyBytesError {
                throw StoatAPIError(
                    code: .malformedResponse, message: "\(name) answered more than \(maximumResponseSize) bytes",
                    cause: error)
            } catch {
                throw await transportFailure(error, url: url, request: name)
            }
            let status = Int(response.status.code)
            logger.debug("Stoat request answered", metadata: metadata.merging(["stoat.status": "\(status)"]) { $1 })
            guard [301, 302, 303, 307, 308].contains(status), let location = response.headers.first(name: "Location")
            else {
                return Response(request: name, status: status, headers: response.headers, body: collected)
            }
            let target = try Self.redirectTarget(location, from: url, request: name)
            redirects += 1
            guard redirects <= Self.maximumRedirects else {
                throw StoatAPIError(
                    code: .redirectRefused, message: "\(name) was redirected more than \(Self.maximumRedirects) times",
                    status: status)
            }
            // As browsers do: 303 always, and 301/302 of anything but GET and HEAD, continue as a GET without
            // a body; 307 and 308 repeat the method and the body.
            if status == 303 || ((status == 301 || status == 302) && method != .GET && method != .HEAD) {
                method = .GET
                payload = .none
            }
            url = target
        }
    }

    /// The absolute URL a redirect's `Location` names, when it keeps the request's origin (scheme, host and
    /// port); otherwise ``StoatAPIErrorCode/redirectRefused`` naming the target's origin and path.
    static func redirectTarget(
        _ location: String, from current: String, request: String
    ) throws(StoatAPIError)
        -> String
    {
        guard let base = URL(string: current), let target = URL(string: location, relativeTo: base)?.absoluteURL,
            let targetOrigin = Origin(target)
        else {
            throw StoatAPIError(code: .redirectRefused, message: "\(request) was redirected to an unreadable location")
        }
        guard let origin = Origin(base), origin == targetOrigin else {
            let shown = "\(targetOrigin.scheme)://\(targetOrigin.host):\(targetOrigin.port)\(target.path)"
            throw StoatAPIError(
                code: .redirectRefused,
                message:
                    "\(request) was redirected to \(shown), another origin; credentials never leave the API's origin")
        }
        return target.absoluteString
    }

    /// A URL's origin: scheme and host in lower case, and the port, explicit or the scheme's default.
    struct Origin: Hashable {
        var scheme: String
        var host: String
        var port: Int

        /// `scheme://host:port`.
        var name: String { "\(scheme)://\(host):\(port)" }

        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
                return nil
            }
            self.scheme = scheme
            self.host = host
            switch (url.port, scheme) {
            case (let port?, _): self.port = port
            case (nil, "https"), (nil, "wss"): self.port = 443
            case (nil, "http"), (nil, "ws"): self.port = 80
            default: return nil
            }
        }
    }

    /// Maps an error of the HTTP client to a ``StoatAPIError``, naming a refused certificate: untrusted, for
    /// another name, or expired (see `TLSDiagnosis`, which may ask the server for its chain once more).
    func transportFailure(_ error: any Error, url: String, request: String) async -> StoatAPIError {
        if let target = URL(string: url), let origin = Origin(target), origin.scheme == "https",
            let failure = await TLSDiagnosis.failure(
                of: error, host: target.host ?? origin.host, port: origin.port,
                configuration: tlsConfiguration ?? .makeClientConfiguration())
        {
            return Self.certificateFailure(failure, request: request, cause: error)
        }
        return Self.transportFailure(error, request: request)
    }

    /// The error for a refused certificate.
    static func certificateFailure(_ failure: TLSDiagnosis.Failure, request: String, cause: any Error) -> StoatAPIError
    {
        switch failure {
        case .untrusted:
            StoatAPIError(
                code: .certificateUntrusted,
                message: "\(request): the server's certificate is not issued by a trusted authority", cause: cause)
        case .nameMismatch:
            StoatAPIError(
                code: .certificateNameMismatch, message: "\(request): the server's certificate is for another name",
                cause: cause)
        case .expired:
            StoatAPIError(
                code: .certificateExpired,
                message: "\(request): the server's certificate has expired or is not valid yet",
                cause: cause)
        }
    }

    /// Maps an error of the HTTP client to a ``StoatAPIError``.
    static func transportFailure(_ error: any Error, request: String) -> StoatAPIError {
        if error is CancellationError {
            return StoatAPIError(code: .cancelled, message: "\(request) was cancelled", cause: error)
        }
        if let error = error as? HTTPClientError {
            if error == .cancelled {
                return StoatAPIError(code: .cancelled, message: "\(request) was cancelled", cause: error)
            }
            let timeouts: [HTTPClientError] = [
                .deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout, .getConnectionFromPoolTimeout,
            ]
            if timeouts.contains(error) {
                return StoatAPIError(code: .timeout, message: "\(request) timed out", cause: error)
            }
            if [HTTPClientError.invalidURL, .emptyHost, .emptyScheme, .missingSocketPath].contains(error) {
                return StoatAPIError(
                    code: .invalidRequest, message: "\(request): the URL is not usable", cause: error)
            }
        }
        return StoatAPIError(code: .network, message: "\(request) failed on the network", cause: error)
    }

    /// `path` without its query, for logs and messages.
    static func pathOnly(_ path: String) -> Substring {
        path.prefix { $0 != "?" }
    }

    /// `base` followed by `path`, with exactly one slash between them.
    static func join(_ base: URL, _ path: String) -> String {
        var prefix = base.absoluteString
        while prefix.hasSuffix("/") { prefix.removeLast() }
        return path.hasPrefix("/") ? prefix + path : prefix + "/" + path
    }

    /// `component` with every byte outside RFC 3986's unreserved characters percent-encoded, for a path
    /// segment or a query value.
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

extension StoatAPIError {
    /// The error a refusal stands for: the server's kind with its fields; a `401` without a kind (the web
    /// framework's answer to a failed session check) as ``StoatAPIErrorCode/invalidSession``; a `409` without a kind (its
    /// answer to a reused `Idempotency-Key`, JSON or an HTML page) as ``StoatAPIErrorCode/duplicateNonce``; a `429` without a
    /// kind (the rate limiter's) as ``StoatAPIErrorCode/rateLimited``; anything else as ``StoatAPIErrorCode/unexpectedStatus``.
    static func refusal(status: Int, body: Data, request: String) -> StoatAPIError {
        let parsed = try? JSONDecoder().decode(RefusalBody.self, from: body)
        // Bounded before it becomes a `Duration`: `ServerHorizon.longestWait` at most.
        let retryAfter = parsed?.retryAfter.flatMap { $0.isNaN ? nil : $0 }
        guard let parsed, let kind = parsed.type, !kind.isEmpty else {
            if status == 401 {
                return StoatAPIError(
                    code: .invalidSession, message: "\(request) answered HTTP 401 without an error kind", status: 401)
            }
            if status == 409 {
                return StoatAPIError(
                    code: .duplicateNonce,
                    message: "\(request) answered HTTP 409 without an error kind (a reused Idempotency-Key)",
                    status: 409)
            }
            if status == 429 {
                return StoatAPIError(
                    code: .rateLimited, message: "\(request) answered HTTP 429", status: 429,
                    retryAfter: retryAfter.map { ServerHorizon.wait(milliseconds: $0) })
            }
            return StoatAPIError(code: .unexpectedStatus, message: "\(request) answered HTTP \(status)", status: status)
        }
        var detail = parsed.permission ?? parsed.error ?? parsed.with ?? parsed.feature
        if detail == nil, let operation = parsed.operation {
            detail = parsed.collection.map { "\(operation) on \($0)" } ?? operation
        }
        // A server that explains any error in a `detail` (Stoat's new events server does so on its socket).
        detail = detail ?? parsed.detail.map(StoatConnectionErrorCode.cut)
        return StoatAPIError(
            code: Code(rawValue: kind), message: "\(request) answered \(kind) (HTTP \(status))", kind: kind,
            location: parsed.location, status: status,
            // `InSlowmode` counts its `retry_after` in seconds; the rate limiter's body has no kind.
            retryAfter: retryAfter.map {
                kind == Code.inSlowmode.rawValue
                    ? ServerHorizon.wait(seconds: $0) : ServerHorizon.wait(milliseconds: $0)
            },
            limit: parsed.max, detail: detail)
    }
}

/// The body of a refusal, as far as it can be read: each field on its own (`StoatAPIError.refusal`).
private struct RefusalBody: Decodable {
    var type: String?
    var location: String?
    var retryAfter: Double?
    var max: Int?
    var permission: String?
    var error: String?
    var with: String?
    var feature: String?
    var operation: String?
    var collection: String?
    var detail: String?

    enum CodingKeys: String, CodingKey {
        case type, location
        case retryAfter = "retry_after"
        case max, permission, error, with, feature, operation, collection, detail
    }

    /// Decodes each field on its own, so one field of an unexpected type loses only itself.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try? container.decodeIfPresent(String.self, forKey: .type)
        location = try? container.decodeIfPresent(String.self, forKey: .location)
        retryAfter = try? container.decodeIfPresent(Double.self, forKey: .retryAfter)
        max = try? container.decodeIfPresent(Int.self, forKey: .max)
        permission = try? container.decodeIfPresent(String.self, forKey: .permission)
        error = try? container.decodeIfPresent(String.self, forKey: .error)
        with = try? container.decodeIfPresent(String.self, forKey: .with)
        feature = try? container.decodeIfPresent(String.self, forKey: .feature)
        operation = try? container.decodeIfPresent(String.self, forKey: .operation)
        collection = try? container.decodeIfPresent(String.self, forKey: .collection)
        detail = try? container.decodeIfPresent(String.self, forKey: .detail)
    }
}
