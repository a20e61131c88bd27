import LifelineCore
import Testing

@testable import LifelineStoat

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Errors as stoatchat answers them: its error kinds with their fields, and the web framework's own 401.
@Suite("REST errors")
struct RESTErrorTests {
    /// What Rocket's default catcher answers when the session guard fails.
    static let frameworkUnauthorized =
        #"{"error":{"code":401,"reason":"Unauthorized","description":"The request requires user authentication."}}"#

    @Test("a 401 without a kind, as the web framework answers a failed session check, is an invalid session")
    func framework401() async throws {
        try await withScriptedServer({ _ in .json(401, Self.frameworkUnauthorized) }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.currentUser(SessionCredentials(token: "T"))
            }
            #expect(error.code == .invalidSession)
            #expect(error.isInvalidSession)
            #expect(error.status == 401)
            #expect(error.kind == nil)
        }
    }

    @Test("logging out an ended session throws invalidSession, which the authenticator takes as done")
    func logoutOfEndedSession() async throws {
        try await withScriptedServer({ _ in .json(401, Self.frameworkUnauthorized) }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let credentials = SessionCredentials(token: "T")
            let error = try await apiError { () async throws(StoatAPIError) in try await api.logout(credentials) }
            #expect(error.code == .invalidSession)
            try await StoatAuthenticator(api: api).endSession(credentials)
            #expect(server.requests.count == 2)
        }
    }

    @Test("a 401 with a kind keeps its kind: a wrong password is not an invalid session")
    func kinded401() {
        let wrong = StoatAPIError.refusal(status: 401, body: Data(#"{"type":"InvalidCredentials"}"#.utf8), request: "r")
        #expect(wrong.code == .invalidCredentials)
        #expect(!wrong.isInvalidSession)
        let blacklisted = StoatAPIError.refusal(
            status: 401, body: Data(#"{"type":"DisallowedContactSupport", "note":"…"}"#.utf8), request: "r")
        #expect(blacklisted.code == .disallowedContactSupport)
    }

    @Test("a body's own detail reaches the typed error, cut at its limit, after the fields stoatchat names")
    func detail() {
        let explained = StoatAPIError.refusal(
            status: 400, body: Data(#"{"type":"InvalidPayload","detail":"Incoming payload does not match"}"#.utf8),
            request: "r")
        #expect(explained.detail == "Incoming payload does not match")
        let named = StoatAPIError.refusal(
            status: 403, body: Data(#"{"type":"MissingPermission","permission":"SendMessage","detail":"x"}"#.utf8),
            request: "r")
        #expect(named.detail == "SendMessage", "stoatchat's own field first")
        let long = String(repeating: "d", count: 2_000)
        let cut = StoatAPIError.refusal(
            status: 400, body: Data(#"{"type":"X","detail":"\#(long)"}"#.utf8), request: "r")
        #expect(cut.detail?.count == StoatConnectionErrorCode.maximumDetailLength + 1)
    }

    @Test(
        "every error kind stoatchat defines maps to its own code, with its status",
        arguments: StoatAPIError.Code.serverKinds)
    func everyKind(code: StoatAPIError.Code, status: Int) {
        let error = StoatAPIError.refusal(
            status: status, body: Data(#"{"type":"\#(code.rawValue)","location":"here"}"#.utf8), request: "GET /x")
        #expect(error.code == code)
        #expect(error.kind == code.rawValue)
        #expect(error.status == status)
        #expect(error.location == "here")
        #expect(error.description == "\(code.rawValue): GET /x answered \(code.rawValue) (HTTP \(status))")
    }

    @Test("stoatchat's kinds are listed once each, among them InvalidUsername and DisallowedMFAMethod")
    func kindTable() {
        let names = StoatAPIError.Code.serverKinds.map(\.code.rawValue)
        #expect(Set(names).count == names.count)
        #expect(names.count == 95)
        #expect(StoatAPIError.Code.invalidUsername.rawValue == "InvalidUsername")
        #expect(StoatAPIError.Code.disallowedMFAMethod.rawValue == "DisallowedMFAMethod")
    }

    @Test("an unknown kind is kept verbatim as the code, with its status")
    func unknownKind() async throws {
        try await withScriptedServer({ _ in .json(418, #"{"type":"BrandNewKind","location":"there"}"#) }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let error = try await apiError { () async throws(StoatAPIError) in try await api.configuration() }
            #expect(error.code == StoatAPIError.Code(rawValue: "BrandNewKind"))
            #expect(error.status == 418)
            #expect(error.location == "there")
            #expect(error.loginFailure.code == LoginFailure.Code(rawValue: "BrandNewKind"))
        }
    }

    @Test(
        "a kind's fields are kept: max as the limit, permission, error, with and feature as the detail",
        arguments: [
            (#"{"type":"TooManyAttachments","max":5}"#, 400, 5, nil),
            (#"{"type":"MissingPermission","permission":"SendMessage"}"#, 403, nil, "SendMessage"),
            (#"{"type":"FailedValidation","error":"limit: range"}"#, 400, nil, "limit: range"),
            (#"{"type":"IncorrectData","with":"nonce"}"#, 400, nil, "nonce"),
            (#"{"type":"FeatureDisabled","feature":"voice"}"#, 400, nil, "voice"),
            (#"{"type":"DatabaseError","operation":"find_one","collection":"users"}"#, 500, nil, "find_one on users"),
        ] as [(String, Int, Int?, String?)])
    func kindFields(body: String, status: Int, limit: Int?, detail: String?) {
        let error = StoatAPIError.refusal(status: status, body: Data(body.utf8), request: "r")
        #expect(error.limit == limit)
        #expect(error.detail == detail)
    }

    @Test("a field of an unexpected type loses only itself")
    func oddField() {
        let error = StoatAPIError.refusal(
            status: 400, body: Data(#"{"type":"TooManyEmbeds","max":"five","location":"l"}"#.utf8), request: "r")
        #expect(error.code == .tooManyEmbeds)
        #expect(error.limit == nil)
        #expect(error.location == "l")
    }

    @Test("an error's description is its code and message, and its cause is kept apart")
    func shape() {
        struct Underlying: Error {}
        let error = StoatAPIError(code: .network, message: "GET / failed on the network", cause: Underlying())
        #expect(error.description == "network: GET / failed on the network")
        #expect(error.cause is Underlying)
    }
}
