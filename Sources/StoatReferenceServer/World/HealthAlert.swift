/// The health service's outage alert (`GET /api/health`'s `alert`).
public struct HealthAlert: Sendable, Equatable, Codable {
    /// A button of the alert.
    public struct Action: Sendable, Equatable, Codable {
        /// The button's text.
        public var text: String
        /// `internal` or `external`.
        public var type: String
        /// Where it leads.
        public var href: String

        /// Creates an action.
        public init(text: String, type: String, href: String) {
            self.text = text
            self.type = type
            self.href = href
        }
    }

    /// The alert's text.
    public var text: String
    /// Whether the user may dismiss it.
    public var dismissable: Bool?
    /// Its buttons.
    public var actions: [Action]?

    /// Creates an alert.
    public init(text: String, dismissable: Bool? = nil, actions: [Action]? = nil) {
        self.text = text
        self.dismissable = dismissable
        self.actions = actions
    }
}

extension HealthAlert: WireEncodable {
    var wire: Wire {
        .object([
            "text": .string(text),
            "dismissable": dismissable.map { .bool($0) },
            "actions": actions.map { list in
                .array(
                    list.map {
                        .object(["text": .string($0.text), "type": .string($0.type), "href": .string($0.href)])
                    })
            },
        ])
    }
}
