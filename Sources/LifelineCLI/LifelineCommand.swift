public import ArgumentParser
import LifelineBenchmarks

/// The `lifeline` command line: its subcommands live in this library so that they can be tested and
/// reused; the executable is a thin `main` that calls its `main()`.
public struct LifelineCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "lifeline",
        abstract: "Keep a Stoat chat session alive, and show how.",
        subcommands: [
            ChatCommand.self, Demo.self, Connect.self, Serve.self, Spec.self, Network.self, Operations.self, Bench.self,
            BenchIdle.self,
            BenchStorm.self, Soak.self,
        ]
    )

    /// Creates the root command; ArgumentParser calls this.
    public init() {}
}
