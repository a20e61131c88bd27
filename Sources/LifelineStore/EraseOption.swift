/// The explicit erase the UI may offer after an encryption or migration failure, for one account.
///
/// Holding one erases nothing; only ``erase()`` does.
public struct EraseOption: Sendable {
    /// The store the account's database lives in.
    public let store: AccountStore

    /// The account whose database would be erased.
    public let account: StoredAccount.ID

    /// Erases the account's database files. Close any ``AccountDatabase`` for the account first.
    ///
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/storage`` when a file cannot be removed.
    public func erase() throws(StoreError) {
        try store.erase(account: account)
    }
}
