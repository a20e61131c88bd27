/// The schema could not be migrated: details for the migration failure popup. The database is unchanged.
public struct MigrationFailure: Sendable {
    /// The schema version the file has: its last applied migration, nil if none. When ``isNewerThanExpected``
    /// this is a version this code does not know.
    public var foundVersion: String?

    /// The schema version this code needs: its last migration.
    public var expectedVersion: String

    /// Whether the file was migrated by a newer version of the code (it has migrations this code does not
    /// know). Updating the app, not erasing, is then the better advice.
    public var isNewerThanExpected: Bool

    /// The error the failed migration threw, if one ran.
    public var cause: (any Error)?

    /// Erases this account's database, if the user chooses to.
    public var eraseOption: EraseOption
}
