import LifelineStoatStore
import LifelineTerminal

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// READY's login screen: the accounts kept on this device, the email and password, the second factor when the
/// server asks for one, and why the last sign-in was refused.
enum LoginScreen {
    /// The column fields start at.
    static let fieldColumn = 16

    /// Where each part of the login screen goes.
    struct Layout {
        var accountsHeader: Int?
        var accountRows: Range<Int>
        var email: Int
        var password: Int
        var code: Int?
        var notice: Int
        var fieldWidth: Int

        init(_ state: ChatState) {
            var row = 4 + min(2, state.loginHints.count)
            let accounts = min(state.models.signIn.accounts.count, 5)
            if accounts > 0 {
                accountsHeader = row
                accountRows = (row + 1)..<(row + 1 + accounts)
                row += accounts + 2
            } else {
                accountsHeader = nil
                accountRows = row..<row
            }
            // A short screen keeps the fields on it: the accounts give way first.
            let needed = state.models.signIn.secondFactor == nil ? 6 : 8
            if row + needed > state.size.rows - 1 {
                row = max(3, state.size.rows - 1 - needed)
            }
            email = row
            password = row + 1
            code = state.models.signIn.secondFactor == nil ? nil : row + 3
            notice = (code ?? password) + 2
            fieldWidth = max(10, min(40, state.size.columns - LoginScreen.fieldColumn - 2))
        }
    }

    static func draw(_ state: ChatState, into grid: inout Grid) {
        let layout = Layout(state)
        let signIn = state.models.signIn
        let form = state.login
        ChatScreen.title("Sign in", state: state, into: &grid)
        let intro =
            state.mode == .demo
            ? "Sign in to the local demo world: its account is filled in, press Enter."
            : "Sign in to \(signIn.server)."
        grid.write(TextLayout.truncate(intro, width: grid.size.columns - 4), row: 2, column: 2, style: ChatStyle.bold)
        for (offset, hint) in state.loginHints.prefix(2).enumerated() {
            grid.write(
                TextLayout.truncate(hint, width: grid.size.columns - 4), row: 3 + offset, column: 2,
                style: ChatStyle.dim)
        }
        if let header = layout.accountsHeader {
            grid.write(
                TextLayout.truncate(
                    "Accounts on this device (↑/↓ picks one, then type its password):", width: grid.size.columns - 4),
                row: header, column: 2, style: ChatStyle.dim)
            for (offset, row) in layout.accountRows.enumerated() where row < layout.email - 1 {
                let account = signIn.accounts[offset]
                let picked = offset == form.account
                let server = account.server.map { "@\($0.authority)" } ?? " (no server yet)"
                let used = account.lastModified.map { " · used \(day($0, state))" } ?? ""
                let text = "\(picked ? "›" : " ") \(account.label ?? account.id)\(server)\(used)"
                let style = picked && form.focus == .account ? ChatStyle.selected : picked ? ChatStyle.bold : .plain
                grid.write(TextLayout.truncate(text, width: grid.size.columns - 6), row: row, column: 4, style: style)
            }
        }
        let focusedRow: Int? =
            switch form.focus {
            case .email: layout.email
            case .password: layout.password
            case .code: layout.code
            case .account: nil
            }
        if let focusedRow { grid.write("›", row: focusedRow, column: 0, style: ChatStyle.key) }
        grid.write("Email", row: layout.email, column: 2, style: ChatStyle.bold)
        if form.focus == .account, form.email.isEmpty {
            grid.write(
                "(the account picked above; type to use another)", row: layout.email, column: fieldColumn,
                style: ChatStyle.dim, limit: layout.fieldWidth + 10)
        } else {
            ChatScreen.field(
                form.email.text, row: layout.email, column: fieldColumn, width: layout.fieldWidth,
                focused: form.focus == .email, into: &grid)
        }
        grid.write("Password", row: layout.password, column: 2, style: ChatStyle.bold)
        ChatScreen.field(
            String(repeating: "•", count: form.password.characters.count), row: layout.password, column: fieldColumn,
            width: layout.fieldWidth, focused: form.focus == .password, into: &grid)
        if let code = layout.code, let methods = signIn.secondFactor {
            grid.write(
                TextLayout.truncate(
                    "The server asks for a second factor (\(methods.joined(separator: ", "))):",
                    width: grid.size.columns - 4), row: code - 1, column: 2, style: ChatStyle.bold)
            grid.write("Code", row: code, column: 2, style: ChatStyle.bold)
            ChatScreen.field(
                form.code.text, row: code, column: fieldColumn, width: layout.fieldWidth, focused: form.focus == .code,
                into: &grid)
        }
        var row = layout.notice
        let width = grid.size.columns - 4
        if signIn.isSigningIn {
            grid.write("Signing in…", row: row, column: 2, style: ChatStyle.dim)
            row += 1
        }
        for line in noticeLines(state) {
            for wrapped in TextLayout.wrap(line, width: width) where row < grid.size.rows - 1 {
                grid.write(wrapped, row: row, column: 2, style: ChatStyle.error)
                row += 1
            }
        }
        let submit = signIn.secondFactor != nil ? "Enter: send the code" : "Enter: sign in"
        ChatScreen.footer("\(submit) · Tab: next field · Ctrl-Q: quit", into: &grid)
    }

    /// The notice READY shows (a login refused, a logout by the server) with its support link, and the sign-in's
    /// own outcome.
    static func noticeLines(_ state: ChatState) -> [String] {
        var lines: [String] = []
        if let notice = state.models.session.presentation.notice {
            lines.append(notice.text)
            if case .loginFailed(let failure) = notice, let link = failure.supportURL {
                lines.append("Support: \(link)")
            }
        }
        if let outcome = state.models.signIn.outcome { lines.append(outcome) }
        return lines
    }

    static func cursor(_ state: ChatState) -> (row: Int, column: Int)? {
        let layout = Layout(state)
        let form = state.login
        switch form.focus {
        case .account: return nil
        case .email:
            return (layout.email, fieldColumn + min(layout.fieldWidth - 1, ChatScreen.caretColumn(form.email)))
        case .password:
            return (layout.password, fieldColumn + min(layout.fieldWidth - 1, form.password.cursor))
        case .code:
            guard let row = layout.code else { return nil }
            return (row, fieldColumn + min(layout.fieldWidth - 1, ChatScreen.caretColumn(form.code)))
        }
    }

    private static func day(_ date: Date, _ state: ChatState) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = state.timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
