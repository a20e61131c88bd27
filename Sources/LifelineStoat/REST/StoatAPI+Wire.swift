import Lifeline
import LifelineCore

extension StoatAPI {
    /// The JSON bodies of the REST API as they travel, mapped to the public models.
    enum Wire {
        /// `{"type": KIND, "location": …}`.
        struct ErrorBody: Decodable {
            var type: String?
            var location: String?
        }

        /// The body of `POST /auth/session/login`: email and password, or an MFA ticket and its answer.
        struct LoginRequest: Encodable {
            var email: String?
            var password: String?
            var mfaTicket: String?
            var mfaResponse: MFAResponse?
            var friendlyName: String?

            init(email: String, password: String, friendlyName: String?) {
                self.email = email
                self.password = password
                self.friendlyName = friendlyName
            }

            init(ticket: String, response: MFAResponse, friendlyName: String?) {
                self.mfaTicket = ticket
                self.mfaResponse = response
                self.friendlyName = friendlyName
            }

            enum CodingKeys: String, CodingKey {
                case email, password
                case mfaTicket = "mfa_ticket"
                case mfaResponse = "mfa_response"
                case friendlyName = "friendly_name"
            }

            enum ResponseKeys: String, CodingKey {
                case password
                case recoveryCode = "recovery_code"
                case totpCode = "totp_code"
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encodeIfPresent(email, forKey: .email)
                try container.encodeIfPresent(password, forKey: .password)
                try container.encodeIfPresent(mfaTicket, forKey: .mfaTicket)
                try container.encodeIfPresent(friendlyName, forKey: .friendlyName)
                if let mfaResponse {
                    var nested = container.nestedContainer(keyedBy: ResponseKeys.self, forKey: .mfaResponse)
                    switch mfaResponse {
                    case .totp(let code): try nested.encode(code, forKey: .totpCode)
                    case .recoveryCode(let code): try nested.encode(code, forKey: .recoveryCode)
                    case .password(let password): try nested.encode(password, forKey: .password)
                    }
                }
            }
        }

        /// A login answer: `Success`, `MFA` or `Disabled`.
        struct LoginResponse: Decodable {
            var result: String
            var id: String?
            var userID: String?
            var token: String?
            var ticket: String?
            var allowedMethods: [String]?

            enum CodingKeys: String, CodingKey {
                case result
                case id = "_id"
                case userID = "user_id"
                case token, ticket
                case allowedMethods = "allowed_methods"
            }

            /// The public result, its session issued by `issuer`; a missing field or an unknown result is a
            /// malformed response.
            func loginResult(issuer: ServerIdentity?) throws(StoatAPIError) -> LoginResult {
                switch result {
                case "Success":
                    if let token, let userID {
                        return .success(
                            SessionCredentials(token: token, userID: userID, sessionID: id, issuer: issuer))
                    }
                case "MFA":
                    if let ticket {
                        return .mfa(
                            MFAChallenge(ticket: ticket, allowedMethods: (allowedMethods ?? []).map(MFAMethod.init)))
                    }
                case "Disabled":
                    if let userID { return .disabled(userID: userID) }
                default:
                    throw StoatAPIError(
                        code: .malformedResponse, message: "POST /auth/session/login answered an unknown result",
                        status: 200)
                }
                throw StoatAPIError(
                    code: .malformedResponse, message: "POST /auth/session/login answered \(result) without its fields",
                    status: 200)
            }
        }

        /// `{"onboarding": Bool}`.
        struct Onboarding: Decodable {
            var onboarding: Bool
        }

        /// `{"username": …}`.
        struct Username: Encodable {
            var username: String
        }

        /// `{"flags": n}`.
        struct Flags: Decodable {
            var flags: Int
        }

        /// One entry of `GET /operations`.
        struct Operation: Decodable {
            var id: String
            var kind: String
            var expiresAt: String

            enum CodingKeys: String, CodingKey {
                case id, kind
                case expiresAt = "expires_at"
            }
        }

        /// The health endpoint's answer.
        struct Health: Decodable {
            var version: String?
            /// Any JSON number: a `u64` or `1e300` is read, then bounded in ``status``.
            var pollRate: Double?
            var alert: Alert?

            struct Alert: Decodable {
                var text: String
                var dismissable: Bool?
                var actions: [Action]?
            }

            struct Action: Decodable {
                var text: String
                var type: String?
                var href: String
            }

            enum CodingKeys: String, CodingKey {
                case version
                case pollRate = "poll_rate"
                case alert
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                version = try? container.decodeIfPresent(String.self, forKey: .version)
                // A poll rate that is not a number loses only itself, not the alert.
                pollRate = try? container.decodeIfPresent(Double.self, forKey: .pollRate)
                alert = try container.decodeIfPresent(Alert.self, forKey: .alert)
            }

            /// The status the session understands: a positive `poll_rate` in milliseconds, at most
            /// `ServerHorizon.longestWait`, and the alert.
            var status: HealthStatus {
                let outage = alert.map { alert in
                    OutageAlert(
                        text: alert.text, isDismissable: alert.dismissable ?? true,
                        actions: (alert.actions ?? []).map {
                            OutageAlert.Action(text: $0.text, href: $0.href, isExternal: $0.type == "external")
                        })
                }
                let interval = pollRate.flatMap { $0 > 0 ? ServerHorizon.wait(milliseconds: $0) : nil }
                return HealthStatus(alert: outage, pollInterval: interval)
            }
        }
    }
}
