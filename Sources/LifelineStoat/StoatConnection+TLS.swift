import LifelineCore
import NIOSSL

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension StoatConnection {
    /// The cause of a connection that failed on the server's certificate — asking for the events URL (`GET /`)
    /// or opening the socket — named by what was wrong with it; `nil` for any other failure.
    static func certificateCause(
        of error: any Error, socketURL: URL?, tls: TLSConfiguration
    ) async -> TemporaryFailureCause? {
        if let error = error as? StoatAPIError {
            let code: TemporaryFailureCause.Code
            switch error.code {
            case .certificateUntrusted: code = .certificateUntrusted
            case .certificateNameMismatch: code = .certificateNameMismatch
            case .certificateExpired: code = .certificateExpired
            default: return nil
            }
            return TemporaryFailureCause(code: code, message: error.message, cause: error)
        }
        guard let socketURL, let host = socketURL.host,
            let failure = await TLSDiagnosis.failure(
                of: error, host: host, port: socketURL.port ?? 443, configuration: tls)
        else { return nil }
        let failed = StoatAPI.certificateFailure(failure, request: "the events socket", cause: error)
        return await certificateCause(of: failed, socketURL: nil, tls: tls)
    }
}
