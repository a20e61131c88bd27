import LifelineCore
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Names why a TLS handshake refused the server's certificate, so that a user can tell a certificate problem
/// from an outage.
///
/// swift-nio-ssl reports a name mismatch on its own (`NIOSSLExtraError.failedToValidateHostname`), but every
/// other verification failure as one BoringSSL error, `CERTIFICATE_VERIFY_FAILED`, whatever the reason. So on
/// that error the server is asked once more: a second handshake, with the same trust roots, that keeps the
/// certificate chain the server presents and reads its validity dates. A certificate of the chain outside its
/// validity period is ``Failure/expired``; otherwise the chain does not lead to a trusted root,
/// ``Failure/untrusted`` (an expired certificate of an untrusted issuer reads as expired). The probe runs only
/// after such a failure, and sends nothing but a handshake.
enum TLSDiagnosis {
    /// What was wrong with the server's certificate.
    enum Failure: Sendable, Equatable {
        /// Not issued, directly or through intermediates, by an authority the client trusts.
        case untrusted
        /// Issued for another name than the host the client connected to.
        case nameMismatch
        /// Expired, or not yet valid.
        case expired
    }

    /// How long the probe may take.
    static let probeTimeout: TimeAmount = .seconds(10)

    /// The certificate failure `error` stands for, probing `host` when the error does not say which; `nil`
    /// when `error` is not a certificate failure.
    static func failure(
        of error: any Error, host: String, port: Int, configuration: TLSConfiguration
    ) async -> Failure? {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname { return .nameMismatch }
        guard isVerificationFailure(error) else { return nil }
        return await probe(host: host, port: port, configuration: configuration) ?? .untrusted
    }

    /// Whether `error` is a handshake that failed on the server's certificate.
    static func isVerificationFailure(_ error: any Error) -> Bool {
        guard let error = error as? NIOSSLError else { return false }
        switch error {
        case .handshakeFailed(let reason): return "\(reason)".contains("CERTIFICATE_VERIFY_FAILED")
        case .unableToValidateCertificate: return true
        default: return false
        }
    }

    /// Connects to `host` again and reads the validity dates of the chain it presents: ``Failure/expired`` when
    /// one is outside them now, ``Failure/untrusted`` otherwise; `nil` when no chain could be read.
    static func probe(host: String, port: Int, configuration: TLSConfiguration) async -> Failure? {
        let validities = Mutex<[(notBefore: Int, notAfter: Int)]?>(nil)
        do {
            let context = try NIOSSLContext(configuration: configuration)
            let isAddress = (try? SocketAddress(ipAddress: host, port: port)) != nil
            let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(probeTimeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // The chain is read and the handshake refused: nothing else is ever sent.
                        let handler = try NIOSSLClientHandler(
                            context: context, serverHostname: isAddress ? nil : host,
                            customVerificationCallback: { certificates, promise in
                                validities.withLock { validities in
                                    validities = certificates.map { (Int($0.notValidBefore), Int($0.notValidAfter)) }
                                }
                                promise.succeed(.failed)
                            })
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
            let channel = try await bootstrap.connect(host: host, port: port).get()
            let closed = channel.closeFuture
            let deadline = channel.eventLoop.scheduleTask(in: probeTimeout) { channel.close(promise: nil) }
            try? await closed.get()
            deadline.cancel()
        } catch {
            // The server went away meanwhile: what was read, if anything, still says.
        }
        guard let chain = validities.withLock({ $0 }) else { return nil }
        let now = Int(Date().timeIntervalSince1970)
        return chain.contains { now < $0.notBefore || now > $0.notAfter } ? .expired : .untrusted
    }
}

extension TLSDiagnosis {
    /// The cause of an events socket that failed on the server's certificate — asking for the events URL
    /// (`GET /`) or opening the socket at `socketURL` (a `wss` URL; `nil` for a plaintext one) — named by what
    /// was wrong with it; `nil` for any other failure. Every socket implementation maps its connect failures
    /// through it.
    static func socketCause(of error: any Error, socketURL: URL?, tls: TLSConfiguration) async -> TemporaryFailureCause?
    {
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
            let failure = await failure(of: error, host: host, port: socketURL.port ?? 443, configuration: tls)
        else { return nil }
        return await socketCause(
            of: StoatAPI.certificateFailure(failure, request: "the events socket", cause: error), socketURL: nil,
            tls: tls)
    }
}
