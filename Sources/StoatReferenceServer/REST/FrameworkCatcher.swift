/// Rocket's default error catcher, which stoatchat's API (`crates/delta`) registers no replacement for: what a
/// failed request guard (a missing or bad session, a duplicate `Idempotency-Key`), an unreadable body or an
/// unknown route answers, instead of a Stoat error.
///
/// The body is JSON — `{"error":{"code":…,"reason":…,"description":…}}` — when the request's `Accept` header
/// prefers `application/json`, and an HTML page otherwise, as Rocket's `default_handler` decides.
enum FrameworkCatcher {
    /// The reason phrase and description Rocket writes for `status`.
    static func text(for status: Int) -> (reason: String, description: String) {
        switch status {
        case 400: ("Bad Request", "The request could not be understood by the server due to malformed syntax.")
        case 401: ("Unauthorized", "The request requires user authentication.")
        case 403: ("Forbidden", "The server refused to authorize the request.")
        case 404: ("Not Found", "The requested resource could not be found.")
        case 409: ("Conflict", "The request could not be processed because of a conflict in the request.")
        case 413: ("Payload Too Large", "The request is larger than the server is willing or able to process.")
        case 422:
            (
                "Unprocessable Entity",
                "The request was well-formed but was unable to be followed due to semantic errors."
            )
        case 429: ("Too Many Requests", "Too many requests have been received recently.")
        case 500:
            ("Internal Server Error", "The server encountered an internal error while processing this request.")
        default: ("Unknown Error", "An unknown error has occurred.")
        }
    }

    /// The body and its content type for `status`, given the request's `Accept` header.
    static func body(status: Int, accept: String?) -> (contentType: String, text: String) {
        let (reason, description) = text(for: status)
        if prefersJSON(accept) {
            let text = """
                {
                  "error": {
                    "code": \(status),
                    "reason": "\(reason)",
                    "description": "\(description)"
                  }
                }
                """
            return ("application/json", text)
        }
        let html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
                <meta charset="utf-8">
                <title>\(status) \(reason)</title>
            </head>
            <body align="center">
                <div role="main" align="center">
                    <h1>\(status): \(reason)</h1>
                    <p>\(description)</p>
                    <hr />
                </div>
                <div role="contentinfo" align="center">
                    <small>Rocket</small>
                </div>
            </body>
            </html>
            """
        return ("text/html; charset=utf-8", html)
    }

    /// Whether the media type `Accept` prefers (the highest `q`, the first on a tie) is `application/json`.
    static func prefersJSON(_ accept: String?) -> Bool {
        guard let accept else { return false }
        var best: (type: String, quality: Double)?
        for item in accept.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmed }
            guard let type = parts.first, !type.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 1.0
            }
            if best == nil || quality > best!.quality { best = (type.lowercased(), quality) }
        }
        return best?.type == "application/json"
    }
}

extension Substring {
    /// The text without surrounding spaces and tabs.
    fileprivate var trimmed: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
