import Foundation
import PackagePlugin

/// Compiles the Swift blocks of the package's documents: DocSnippetExtractor writes each ```swift block of
/// README.md and the app guide as a Swift file of the target it runs for (DocSnippetTests), so a snippet that
/// drifts from the API fails the build.
@main
struct DocSnippets: BuildToolPlugin {
    /// The documents whose snippets are compiled, from the package's root.
    static let documents = [
        "README.md",
        "Sources/LifelineStoat/LifelineStoat.docc/BuildingAStoatApp.md",
        "Sources/LifelineStoat/LifelineStoat.docc/LifelineStoat.md",
    ]

    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "Snippets")
        var inputs: [URL] = []
        var outputs: [URL] = []
        for document in Self.documents {
            let url = root.appending(path: document)
            inputs.append(url)
            // The extractor's rule: a block starts at a line that is exactly ```swift, indentation aside.
            let text = try String(contentsOf: url, encoding: .utf8)
            let blocks = text.components(separatedBy: "\n").filter {
                $0.trimmingCharacters(in: .whitespaces) == "```swift"
            }.count
            let name = String(
                url.deletingPathExtension().lastPathComponent.map { $0.isLetter || $0.isNumber ? $0 : "_" })
            for number in 0..<blocks { outputs.append(output.appending(path: "\(name)_\(number + 1).swift")) }
        }
        return [
            .buildCommand(
                displayName: "Extracting the Swift snippets of \(Self.documents.count) documents",
                executable: try context.tool(named: "DocSnippetExtractor").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: outputs)
        ]
    }
}
