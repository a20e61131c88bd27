// An app that keeps the account's encrypted store names everything it uses through this one import: the
// Stoat client, its session's states and banners (LifelineStoat re-exports Lifeline and LifelineCore), and the
// store's accounts and sign-in outcomes.
@_exported public import LifelineStoat
@_exported public import LifelineStore
