// The program the terminal tests run in a pseudo-terminal: it takes the terminal over with `Terminal`, draws a line
// per input event, quits on `q`, throws on `t`, and otherwise waits for events (or a signal).
import Foundation
import LifelineTerminal

struct ProbeFailure: Error {}

func describe(_ event: InputEvent) -> String {
    switch event {
    case .key(let press): "key \(press.key) \(press.modifiers.rawValue)"
    case .paste(let text): "paste \(text.debugDescription)"
    case .mouse(let mouse): "mouse \(mouse.action) \(mouse.row) \(mouse.column)"
    case .resize(let size): "resize \(size.columns)x\(size.rows)"
    }
}

let options: TerminalOptions = CommandLine.arguments.contains("--no-mouse") ? .noMouse : .standard
do {
    try await Terminal.withTerminal(options: options) { terminal in
        var lines = ["ready \(terminal.size.columns)x\(terminal.size.rows)"]
        func draw() throws {
            var grid = Grid(size: terminal.size)
            for (row, line) in lines.suffix(grid.size.rows).enumerated() { grid.write(line, row: row, column: 0) }
            try terminal.draw(grid)
        }
        try draw()
        for await event in terminal.events {
            if event == .key(.character("q")) { return }
            if event == .key(.character("t")) { throw ProbeFailure() }
            lines.append(describe(event))
            try draw()
        }
    }
} catch is ProbeFailure {
    exit(3)
}
