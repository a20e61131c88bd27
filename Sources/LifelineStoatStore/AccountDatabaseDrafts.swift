import LifelineStoat
import LifelineStore

/// The drafts' store: LifelineStore's `AccountDatabase`, sealed in its `draft` table (schema `v6`).
package struct AccountDatabaseDrafts: DraftPersistence {
    let database: AccountDatabase

    package init(database: AccountDatabase) { self.database = database }

    package func drafts() async throws -> (drafts: [String: String], unreadable: [String]) {
        let stored = try await database.drafts()
        return (stored.drafts, stored.damaged.map { "a draft does not open: \($0)" })
    }

    package func save(_ text: String, chat: String) async throws {
        try await database.saveDraft(text, chatID: chat)
    }
}
