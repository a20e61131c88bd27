import Crypto
import NIOCore
import SwiftASN1
import X509

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A certificate authority made when it is needed, and the server certificates it issues: for serving the
/// reference server over TLS (``ReferenceServer/Configuration/tlsIdentity``) in tests and demos.
///
/// Nothing is committed: a committed key is a secret in the repository, and a committed certificate expires
/// and fails the tests on a date nobody remembers. Each test makes its own authority (P-256 keys, ECDSA with
/// SHA-256, from swift-certificates) in milliseconds, and can issue the certificates a client must refuse — one
/// for another name, one that has expired — beside the one it must accept.
///
/// ```swift
/// let authority = try ReferenceCertificateAuthority()
/// var configuration = ReferenceServer.Configuration()
/// configuration.tlsIdentity = try authority.issue(for: ["127.0.0.1", "localhost"])
/// let server = try await ReferenceServer.start(configuration)   // https://127.0.0.1:PORT, wss://…
/// // trust authority.certificatePEM in the client
/// ```
public struct ReferenceCertificateAuthority: Sendable {
    /// The authority's certificate, PEM: what a client adds to its trust roots.
    public let certificatePEM: String

    private let name: DistinguishedName
    private let key: P256.Signing.PrivateKey

    /// Makes an authority with a new key, valid from an hour ago for a day.
    ///
    /// - Parameter commonName: The authority's name.
    /// - Throws: When the certificate cannot be built (it always can, with these inputs).
    public init(commonName: String = "Lifeline Reference CA") throws {
        key = P256.Signing.PrivateKey()
        name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(key))
        certificatePEM = try certificate.serializeAsPEM().pemString
    }

    /// Issues a server certificate for `hosts` (DNS names, or IPv4 and IPv6 addresses), valid between the dates.
    ///
    /// - Parameters:
    ///   - hosts: The names the certificate is for, as subject alternative names.
    ///   - notValidBefore: The start of its validity; an hour ago by default.
    ///   - notValidAfter: The end of its validity; a day from now by default. A date in the past makes an
    ///     expired certificate.
    /// - Returns: The certificate and its private key, PEM.
    /// - Throws: When the certificate cannot be built.
    public func issue(
        for hosts: [String], notValidBefore: Date = Date().addingTimeInterval(-3_600),
        notValidAfter: Date = Date().addingTimeInterval(86_400)
    ) throws -> ReferenceServerIdentity {
        let serverKey = P256.Signing.PrivateKey()
        let names: [GeneralName] = hosts.map { host in
            if let address = Self.addressBytes(host) { return .ipAddress(ASN1OctetString(contentBytes: address[...])) }
            return .dnsName(host)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(serverKey.publicKey),
            notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: name,
            subject: try DistinguishedName { CommonName(hosts.first ?? "reference") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: .init(key))
        return ReferenceServerIdentity(
            certificatePEM: try certificate.serializeAsPEM().pemString, privateKeyPEM: serverKey.pemRepresentation)
    }

    /// The bytes of an IPv4 or IPv6 address, or `nil` for a name.
    private static func addressBytes(_ host: String) -> [UInt8]? {
        switch try? SocketAddress(ipAddress: host, port: 0) {
        case .v4(let address): withUnsafeBytes(of: address.address.sin_addr) { Array($0) }
        case .v6(let address): withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
        default: nil
        }
    }
}

/// A server's certificate and private key, PEM (``ReferenceCertificateAuthority/issue(for:notValidBefore:notValidAfter:)``).
public struct ReferenceServerIdentity: Sendable {
    /// The server's certificate, PEM.
    public var certificatePEM: String
    /// Its private key, PEM (PKCS #8).
    public var privateKeyPEM: String

    /// Creates an identity from PEM text.
    public init(certificatePEM: String, privateKeyPEM: String) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }
}
