import ArgumentParser
import LifelineStoat
import NIOSSL

/// `--ca-file PEM`: certificate authorities to trust besides the system's, for a self-hosted instance with its
/// own. They are added to ``StoatClient/Configuration/tls``, the one TLS configuration of the client's REST calls
/// and its events socket.
enum CertificateAuthorities {
    /// The certificates of a PEM file.
    ///
    /// - Throws: `ValidationError` naming `--ca-file` when the file cannot be read or holds no certificate.
    static func load(_ path: String) throws -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw ValidationError("--ca-file: \(path) is not a readable PEM file of certificates (\(error)).")
        }
        guard !certificates.isEmpty else { throw ValidationError("--ca-file: \(path) holds no certificate.") }
        return certificates
    }

    /// Adds the authorities of `path`, if given, to the client's trust roots.
    static func trust(_ path: String?, in configuration: inout StoatClient.Configuration) throws {
        guard let path else { return }
        configuration.tls.additionalTrustRoots.append(.certificates(try load(path)))
    }
}
