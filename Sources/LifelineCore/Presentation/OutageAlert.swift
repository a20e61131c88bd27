/// An outage alert from the health service (see the lifecycle's decisions: health polling).
public struct OutageAlert: Sendable, Hashable, Codable {
    /// A link the alert offers.
    public struct Action: Sendable, Hashable, Codable {
        /// The link's text.
        public var text: String
        /// Where it leads.
        public var href: String
        /// Whether it leaves the app (`external`) or stays in it (`internal`).
        public var isExternal: Bool

        /// Creates an action.
        public init(text: String, href: String, isExternal: Bool) {
            self.text = text
            self.href = href
            self.isExternal = isExternal
        }
    }

    /// The alert's text.
    public var text: String
    /// Whether the user may dismiss it.
    public var isDismissable: Bool
    /// Links the alert offers.
    public var actions: [Action]

    /// Creates an alert.
    public init(text: String, isDismissable: Bool = true, actions: [Action] = []) {
        self.text = text
        self.isDismissable = isDismissable
        self.actions = actions
    }
}
