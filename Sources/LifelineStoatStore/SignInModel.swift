public import LifelineStoat
public import LifelineStore
public import Observation

/// The sign-in screen for SwiftUI: the accounts kept on the device with their servers, the sign-in in flight,
/// its outcome, the second factor it asks for and the erase it offers.
///
/// ```swift
/// @State var signIn = SignInModel(client: client, store: store)
///
/// if let step = signIn.secondFactor { CodeField { code in Task { await signIn.submit(code: code) } } }
/// if let erase = signIn.eraseOffer { Button("Erase this device's data") { try? signIn.erase(erase) } }
/// ```
///
/// Each sign-in goes through `StoatClient`'s store sign-in (`signIn(to:email:password:)`): the outcome's
/// notice also shows in the session's presentation (`StoatClientModel.notice`). Nothing is erased but by
/// ``erase(_:)``, the user's choice.
@MainActor
@Observable
public final class SignInModel {
    /// The accounts kept on this device for the client's server (and those written before accounts had a
    /// server), most recently used first.
    public private(set) var accounts: [StoredAccount] = []
    /// Whether a sign-in is in flight (disable the button).
    public private(set) var isSigningIn = false
    /// The last sign-in's outcome, `nil` before the first.
    public private(set) var outcome: SignInOutcome?
    /// Why the device's accounts could not be listed, if they could not.
    public private(set) var storeError: StoreError?

    /// The client signed in.
    @ObservationIgnored public let client: StoatClient
    /// The directory of account stores.
    @ObservationIgnored public let store: AccountStore

    /// Whether the last sign-in started a session (the app shows its home).
    public var isSignedIn: Bool { outcome?.session != nil }

    /// The second factor the last sign-in asks for: show a code field for its methods, then ``submit(_:)``.
    public var secondFactor: SecondFactorStep? {
        if case .secondFactorRequired(let step) = outcome { return step }
        return nil
    }

    /// The erase the last sign-in offers (the store does not open with this version or this password): offer
    /// it, never act on it without the user.
    public var eraseOffer: EraseOption? {
        switch outcome {
        case .encryptionFailure(let failure): failure.eraseOption
        case .migrationFailure(let failure): failure.eraseOption
        default: nil
        }
    }

    /// Creates the model and lists the device's accounts.
    ///
    /// - Parameters:
    ///   - client: The client to sign in.
    ///   - store: The directory of account stores.
    public init(client: StoatClient, store: AccountStore) {
        self.client = client
        self.store = store
        reloadAccounts()
    }

    /// Lists the device's accounts again (after a sign-in created one, or an erase removed one).
    public func reloadAccounts() {
        do {
            let server = client.api.server
            let listed = try store.accounts().filter { $0.server == nil || $0.server == server }
            if listed != accounts { accounts = listed }
            if storeError != nil { storeError = nil }
        } catch {
            storeError = error
        }
    }

    /// Signs in by email: the first time on this device, or to an account not listed.
    ///
    /// - Parameters:
    ///   - email: The account's email.
    ///   - password: The password the user typed; never kept.
    public func signIn(email: String, password: String) async {
        await run { await $0.client.signIn(to: $0.store, email: email, password: password) }
    }

    /// Signs in to a listed account with its password.
    ///
    /// - Parameters:
    ///   - account: The account, from ``accounts``.
    ///   - password: The password the user typed.
    public func signIn(account: StoredAccount, password: String) async {
        await run { await $0.client.signIn(to: $0.store, account: account.id, password: password) }
    }

    /// Answers the second factor ``secondFactor`` asks for.
    ///
    /// - Parameter response: The method and the code the user gave.
    public func submit(_ response: SecondFactorResponse) async {
        guard let step = secondFactor else { return }
        await run { await $0.client.continueSignIn(step, with: response) }
    }

    /// Erases the account's store the last sign-in offered to erase: the user chose it.
    ///
    /// - Parameter offer: ``eraseOffer``.
    /// - Throws: `StoreError` when the files cannot be removed.
    public func erase(_ offer: EraseOption) throws(StoreError) {
        try offer.erase()
        outcome = nil
        reloadAccounts()
    }

    private func run(_ signIn: (SignInModel) async -> SignInOutcome) async {
        guard !isSigningIn else { return }
        isSigningIn = true
        defer { isSigningIn = false }
        outcome = await signIn(self)
        reloadAccounts()
    }
}
