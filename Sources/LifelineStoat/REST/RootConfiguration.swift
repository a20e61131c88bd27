#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A Stoat server's configuration, as `GET /` on the API base answers it.
///
/// Clients take the events socket's URL (``eventsURL``) from here rather than guessing it. Only what a
/// client needs is modelled; unknown fields are ignored, and every field but `ws` may be absent.
public struct RootConfiguration: Sendable, Hashable, Decodable {
    /// The events WebSocket (`ws`), without the `version` and `format` query items.
    public var eventsURL: URL
    /// The API version the server speaks (`revolt`, for example `0.8.8`).
    public var apiVersion: String?
    /// The web app's URL (`app`).
    public var appURL: String?
    /// The public VAPID key for web push (`vapid`), empty when push is off.
    public var vapid: String?
    /// What the server offers.
    public var features: Features
    /// Which build the server runs.
    public var build: Build?

    /// The optional features of a Stoat server (`features`).
    public struct Features: Sendable, Hashable, Decodable {
        /// The hCaptcha configuration: whether logins and sign-ups need a captcha, and the site key.
        public var captcha: Captcha
        /// Whether the server verifies email addresses (`email`).
        public var email: Bool
        /// Whether sign-up needs an invite (`invite_only`).
        public var inviteOnly: Bool
        /// The file server (`autumn`).
        public var fileServer: Service
        /// The link preview proxy (`january`).
        public var proxy: Service
        /// Whether voice (`livekit`) is enabled.
        public var voice: Bool
        /// The accounts' limits (`limits`), where the server states them (stoatchat does since 0.8); `nil`
        /// otherwise, and a limit part of it that cannot be read is left out rather than failing the document.
        public var limits: Limits?

        /// Creates a feature set; everything is off by default.
        public init(
            captcha: Captcha = Captcha(), email: Bool = false, inviteOnly: Bool = false,
            fileServer: Service = Service(), proxy: Service = Service(), voice: Bool = false, limits: Limits? = nil
        ) {
            self.captcha = captcha
            self.email = email
            self.inviteOnly = inviteOnly
            self.fileServer = fileServer
            self.proxy = proxy
            self.voice = voice
            self.limits = limits
        }

        enum CodingKeys: String, CodingKey {
            case captcha, email
            case inviteOnly = "invite_only"
            case fileServer = "autumn"
            case proxy = "january"
            case voice = "livekit"
            case limits
        }

        /// Decodes the features; a missing feature is off.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            captcha = try container.decodeIfPresent(Captcha.self, forKey: .captcha) ?? Captcha()
            email = try container.decodeIfPresent(Bool.self, forKey: .email) ?? false
            inviteOnly = try container.decodeIfPresent(Bool.self, forKey: .inviteOnly) ?? false
            fileServer = try container.decodeIfPresent(Service.self, forKey: .fileServer) ?? Service()
            proxy = try container.decodeIfPresent(Service.self, forKey: .proxy) ?? Service()
            voice = try container.decodeIfPresent(Service.self, forKey: .voice)?.enabled ?? false
            limits = try? container.decodeIfPresent(Limits.self, forKey: .limits)
        }
    }

    /// What an account may do (`features.limits`): a new account's limits (`new_user`) while it is younger than
    /// ``newUserHours``, an established one's (`default`) after.
    public struct Limits: Sendable, Hashable, Decodable {
        /// One kind of account's limits.
        public struct Account: Sendable, Hashable, Decodable {
            /// The largest upload per file server tag, in bytes (`file_upload_size_limits`: `attachments`,
            /// `avatars`…).
            public var uploadSizes: [String: Int]
            /// The most attachments one message carries (`message_attachments`).
            public var messageAttachments: Int?

            /// Creates an account's limits.
            public init(uploadSizes: [String: Int], messageAttachments: Int? = nil) {
                self.uploadSizes = uploadSizes
                self.messageAttachments = messageAttachments
            }

            enum CodingKeys: String, CodingKey {
                case uploadSizes = "file_upload_size_limits"
                case messageAttachments = "message_attachments"
            }

            /// Decodes the limits; a missing table is empty, and sizes that are not integers are left out.
            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                let sizes = (try? container.decodeIfPresent([String: Double].self, forKey: .uploadSizes)) ?? [:]
                uploadSizes = sizes.compactMapValues { $0.isFinite && $0 >= 0 && $0 < 1e15 ? Int($0) : nil }
                messageAttachments = try? container.decodeIfPresent(Int.self, forKey: .messageAttachments)
            }
        }

        /// An account's limits while it is new.
        public var newUser: Account
        /// An established account's limits.
        public var standard: Account
        /// How many hours after its creation an account is new (`global.new_user_hours`); 72 when not stated.
        public var newUserHours: Int
        /// The largest upload body the file server reads (`global.body_limit_size`), if stated.
        public var bodyLimit: Int?

        /// Creates limits.
        public init(newUser: Account, standard: Account, newUserHours: Int = 72, bodyLimit: Int? = nil) {
            self.newUser = newUser
            self.standard = standard
            self.newUserHours = newUserHours
            self.bodyLimit = bodyLimit
        }

        enum CodingKeys: String, CodingKey {
            case newUser = "new_user"
            case standard = "default"
            case global
        }

        struct Global: Decodable {
            var newUserHours: Int?
            var bodyLimitSize: Int?
            enum CodingKeys: String, CodingKey {
                case newUserHours = "new_user_hours"
                case bodyLimitSize = "body_limit_size"
            }
        }

        /// Decodes `features.limits`.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            newUser = try container.decode(Account.self, forKey: .newUser)
            standard = try container.decode(Account.self, forKey: .standard)
            let global = try? container.decodeIfPresent(Global.self, forKey: .global)
            newUserHours = min(max(global?.newUserHours ?? 72, 0), 1_000_000)
            bodyLimit = global?.bodyLimitSize
        }

        /// The limits of the account `userID` at `now`: a new account's while its id's time (a ULID's, as
        /// stoatchat's `User::limits` reads it) is within ``newUserHours``, an established one's after (and for
        /// an id that is not a ULID).
        ///
        /// - Parameters:
        ///   - userID: The account's user id.
        ///   - now: The time to judge by (the device's clock).
        public func account(_ userID: String, at now: Date) -> Account {
            guard let created = ULID.date(of: userID) else { return standard }
            return now.timeIntervalSince(created) <= Double(newUserHours) * 3600 ? newUser : standard
        }
    }

    /// The captcha a server asks for.
    public struct Captcha: Sendable, Hashable, Decodable {
        /// Whether logins and sign-ups need a captcha.
        public var enabled: Bool
        /// The hCaptcha site key.
        public var key: String

        /// Creates a captcha configuration; off by default.
        public init(enabled: Bool = false, key: String = "") {
            self.enabled = enabled
            self.key = key
        }

        enum CodingKeys: String, CodingKey { case enabled, key }

        /// Decodes the configuration; missing fields are off and empty.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? false
            key = try container.decodeIfPresent(String.self, forKey: .key) ?? ""
        }
    }

    /// A companion service (the file server, the link proxy).
    public struct Service: Sendable, Hashable, Decodable {
        /// Whether the server runs it.
        public var enabled: Bool
        /// Its base URL, empty when it is off.
        public var url: String

        /// Creates a service description; off by default.
        public init(enabled: Bool = false, url: String = "") {
            self.enabled = enabled
            self.url = url
        }

        enum CodingKeys: String, CodingKey { case enabled, url }

        /// Decodes the service; missing fields are off and empty.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? false
            url = try container.decodeIfPresent(String.self, forKey: .url) ?? ""
        }
    }

    /// The server's build (`build`).
    public struct Build: Sendable, Hashable, Decodable {
        /// The commit the server was built from (`commit_sha`).
        public var commitSHA: String?
        /// The server's version (`semver`).
        public var semver: String?
        /// Where its source lives (`origin_url`).
        public var originURL: String?

        /// Creates a build description.
        public init(commitSHA: String? = nil, semver: String? = nil, originURL: String? = nil) {
            self.commitSHA = commitSHA
            self.semver = semver
            self.originURL = originURL
        }

        enum CodingKeys: String, CodingKey {
            case commitSHA = "commit_sha"
            case semver
            case originURL = "origin_url"
        }
    }

    /// Creates a configuration.
    public init(
        eventsURL: URL, apiVersion: String? = nil, appURL: String? = nil, vapid: String? = nil,
        features: Features = Features(), build: Build? = nil
    ) {
        self.eventsURL = eventsURL
        self.apiVersion = apiVersion
        self.appURL = appURL
        self.vapid = vapid
        self.features = features
        self.build = build
    }

    enum CodingKeys: String, CodingKey {
        case eventsURL = "ws"
        case apiVersion = "revolt"
        case appURL = "app"
        case vapid, features, build
    }

    /// Decodes a configuration; `ws` is required, everything else may be absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let events = try container.decode(String.self, forKey: .eventsURL)
        guard let url = URL(string: events), url.scheme != nil else {
            throw DecodingError.dataCorruptedError(
                forKey: .eventsURL, in: container, debugDescription: "`ws` is not an absolute URL")
        }
        eventsURL = url
        apiVersion = try container.decodeIfPresent(String.self, forKey: .apiVersion)
        appURL = try container.decodeIfPresent(String.self, forKey: .appURL)
        vapid = try container.decodeIfPresent(String.self, forKey: .vapid)
        features = try container.decodeIfPresent(Features.self, forKey: .features) ?? Features()
        build = try container.decodeIfPresent(Build.self, forKey: .build)
    }
}
