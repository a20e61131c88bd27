import Foundation
import LifelineCore
import LifelineStore
import Testing

@testable import LifelineCLI

/// How `lifeline connect --account` picks an account of the store.
@Suite("--account LABEL and LABEL@HOST")
struct AccountChoiceTests {
    let a = ServerIdentity("http://127.0.0.1:8080")!
    let b = ServerIdentity("https://stoat.example/api")!

    func account(_ id: String, _ label: String?, _ server: ServerIdentity?) -> StoredAccount {
        StoredAccount(id: id, label: label, server: server, lastModified: nil)
    }

    @Test("an unambiguous label picks its account, whatever its server, as before")
    func unambiguous() throws {
        let accounts = [account("1", "ada", a), account("2", "bob", b), account("3", "old", nil)]
        #expect(try Connect.account(named: "bob", in: accounts, api: a).id == "2")
        #expect(try Connect.account(named: "old", in: accounts, api: a).id == "3")
    }

    @Test("a label on several servers is refused with the choices; LABEL@HOST picks one by host, host:port or URL")
    func ambiguous() throws {
        let accounts = [account("1", "ada", a), account("2", "ada", b)]
        do {
            _ = try Connect.account(named: "ada", in: accounts, api: a)
            Issue.record("an ambiguous label was accepted")
        } catch {
            let message = "\(error)"
            #expect(message.contains("ada@127.0.0.1:8080") && message.contains("ada@stoat.example"), "\(message)")
        }
        #expect(try Connect.account(named: "ada@127.0.0.1:8080", in: accounts, api: b).id == "1")
        #expect(try Connect.account(named: "ada@127.0.0.1", in: accounts, api: b).id == "1")
        #expect(try Connect.account(named: "ada@stoat.example", in: accounts, api: a).id == "2")
        #expect(try Connect.account(named: "ada@https://stoat.example/api/", in: accounts, api: a).id == "2")
        #expect(throws: (any Error).self) { try Connect.account(named: "ada@127.0.0.1:9", in: accounts, api: a) }
    }

    @Test("an account not bound yet is the API's for LABEL@HOST, after the bound ones of that server")
    func unbound() throws {
        let accounts = [account("1", "ada", a), account("2", "ada", nil)]
        #expect(try Connect.account(named: "ada@127.0.0.1:8080", in: accounts, api: a).id == "1")
        #expect(try Connect.account(named: "ada@stoat.example", in: accounts, api: b).id == "2")
        #expect(throws: (any Error).self) { try Connect.account(named: "ada@stoat.example", in: accounts, api: a) }
    }

    @Test("the choices: LABEL@HOST, the full server when two share a host, and accounts without a server")
    func choices() {
        let https = ServerIdentity("https://127.0.0.1:8080")!
        let listed = Connect.choices([account("1", "ada", a), account("2", "ada", https), account("3", nil, nil)])
        #expect(listed == "3 (no server yet), ada@http://127.0.0.1:8080, ada@https://127.0.0.1:8080")
    }

    @Test("without --account or --email: the only account, or the only one of the API's server")
    func only() throws {
        #expect(try Connect.onlyAccount(in: [account("1", "ada", a)], api: b).id == "1")
        let two = [account("1", "ada", a), account("2", "ada", b)]
        #expect(try Connect.onlyAccount(in: two, api: b).id == "2")
        #expect(throws: (any Error).self) { try Connect.onlyAccount(in: two, api: ServerIdentity("http://x")) }
        let unbound = [account("1", "ada", nil), account("2", "bob", nil)]
        #expect(throws: (any Error).self) { try Connect.onlyAccount(in: unbound, api: nil) }
        #expect(throws: (any Error).self) { try Connect.onlyAccount(in: [], api: a) }
    }
}
