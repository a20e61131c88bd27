public import NIOSSL

extension StoatClient.Configuration {
    /// The TLS configuration of every connection the client makes: its REST calls and its events socket (the
    /// socket layer takes it as its input, ``StoatConnectionFactory/Configuration/tls``, which this property
    /// reads and writes). Certificates are verified against the system's trust roots by default; a self-hosted
    /// instance with its own authority adds that authority:
    ///
    /// ```swift
    /// var configuration = StoatClient.Configuration()
    /// configuration.tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(caPath))]
    /// ```
    ///
    /// A certificate the configuration refuses is named in the failure's code:
    /// `TemporaryFailureCause.Code.certificateUntrusted`, `.certificateNameMismatch` or `.certificateExpired`
    /// (``StoatAPIErrorCode/certificateUntrusted``… for a REST call).
    public var tls: TLSConfiguration {
        get { connection.tls }
        set { connection.tls = newValue }
    }
}

extension StoatConnectionFactory.Configuration {
    /// The TLS configuration by default: the system's trust roots, full verification, and a wait of at most
    /// 100 ms for the server's `close_notify` when a connection ends. Lifeline aborts a socket rather than closing
    /// it politely, and swift-nio-ssl's own default waits 5 s for the peer, which held a stopping session (and a
    /// `lifeline connect` told to stop) that long. Start from it when you add trust roots.
    public static var defaultTLS: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.shutdownTimeout = .milliseconds(100)
        return configuration
    }
}
