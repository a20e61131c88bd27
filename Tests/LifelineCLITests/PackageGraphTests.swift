import Foundation
import TestProcess
import Testing

/// What the shipped `lifeline` executable is built from, read from the package's own manifest.
@Suite("The package graph")
struct PackageGraphTests {
    /// The manifest as SwiftPM reads it (`swift package dump-package`): each target's name and the names of
    /// the targets and products it depends on.
    struct Manifest: Decodable {
        struct Target: Decodable {
            var name: String
            var dependencies: [Dependency]
        }

        /// `{"byName": [name, condition]}`, `{"target": [name, condition]}` or
        /// `{"product": [name, package, moduleAliases, condition]}`: the first element names it.
        struct Dependency: Decodable {
            var name: String
            var isProduct: Bool

            private enum Kind: String, CodingKey { case byName, target, product }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Kind.self)
                guard let kind = container.allKeys.first else {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: decoder.codingPath, debugDescription: "no kind"))
                }
                var fields = try container.nestedUnkeyedContainer(forKey: kind)
                name = try fields.decode(String.self)
                isProduct = kind == .product
            }
        }

        struct Product: Decodable {
            var name: String
            var targets: [String]
        }

        var targets: [Target]
        var products: [Product]

        /// Every target of this package that `target` is built from, itself included; a dependency on one of
        /// this package's products counts as its targets.
        func closure(of target: String) -> Set<String> {
            let byName = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
            let productTargets = Dictionary(uniqueKeysWithValues: products.map { ($0.name, $0.targets) })
            var seen: Set<String> = []
            var pending = [target]
            while let name = pending.popLast() {
                guard seen.insert(name).inserted, let target = byName[name] else { continue }
                for dependency in target.dependencies {
                    if dependency.isProduct {
                        // Another package's product, or one of this package's own.
                        pending += productTargets[dependency.name] ?? []
                    } else {
                        pending += productTargets[dependency.name] ?? [dependency.name]
                    }
                }
            }
            return seen.intersection(byName.keys)
        }

        /// The products of other packages that `target` is built from, directly or through this package's
        /// targets (`GRDB`, `NIOCore`…).
        func externalProducts(of target: String) -> Set<String> {
            let byName = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
            let own = Set(products.map(\.name))
            var found: Set<String> = []
            for name in closure(of: target) {
                for dependency in byName[name]?.dependencies ?? [] where dependency.isProduct {
                    if !own.contains(dependency.name) { found.insert(dependency.name) }
                }
            }
            return found
        }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Evaluates the manifest with the toolchain that runs the tests, in a scratch folder of its own so that
    /// it never waits for the build folder's lock.
    static func manifest() throws -> Manifest {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("lifeline-package-graph-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swift", "package", "--package-path", packageRoot.path, "--scratch-path", scratch.path, "dump-package",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "swift package dump-package failed")
        return try JSONDecoder().decode(Manifest.self, from: data)
    }

    @Test("the shipped lifeline executable is not built from LifelineTesting")
    func executableShipsNoTestSupport() async throws {
        // `swift package dump-package` compiles the manifest: seconds, and more on a loaded machine, waited
        // for on a thread of its own (see `Executable.run(_:)`).
        let manifest = try await Executable.onOwnThread { try Self.manifest() }
        let shipped = manifest.closure(of: "lifeline")
        // The reading works: the executable is built from the command line's library and the runtime.
        #expect(shipped.isSuperset(of: ["lifeline", "LifelineCLI", "Lifeline", "LifelineCore"]))
        #expect(!shipped.contains("LifelineTesting"), "lifeline is built from \(shipped.sorted())")
        // …and the same reading does see LifelineTesting where it belongs.
        #expect(manifest.closure(of: "LifelineTests").contains("LifelineTesting"))
    }

    @Test(
        "an app without a store links no GRDB: LifelineStoat is built without LifelineStore; LifelineStoatStore adds it"
    )
    func stoatLinksNoStore() async throws {
        let manifest = try await Executable.onOwnThread { try Self.manifest() }
        let stoat = manifest.closure(of: "LifelineStoat")
        #expect(stoat.isSuperset(of: ["LifelineStoat", "Lifeline", "LifelineCore"]))
        #expect(!stoat.contains("LifelineStore"), "LifelineStoat is built from \(stoat.sorted())")
        #expect(!manifest.externalProducts(of: "LifelineStoat").contains("GRDB"))
        // The same reading sees GRDB where the store is.
        #expect(manifest.closure(of: "LifelineStoatStore").isSuperset(of: ["LifelineStoat", "LifelineStore"]))
        #expect(manifest.externalProducts(of: "LifelineStoatStore").contains("GRDB"))
        let products = Dictionary(uniqueKeysWithValues: manifest.products.map { ($0.name, $0.targets) })
        #expect(products["LifelineStoat"] == ["LifelineStoat"])
        #expect(products["LifelineStoatStore"] == ["LifelineStoatStore"])
    }

    @Test("the built lifeline binary holds no symbol of LifelineTesting")
    func binaryHoldsNoTestSupport() async throws {
        // Reading and searching a debug binary of some 180 MB is done on a thread of its own too.
        let url = try Executable.url
        // Swift mangles a module's name with its length: every symbol of the module carries this.
        let (testing, cli) = try await Executable.onOwnThread {
            let binary = try Data(contentsOf: url)
            return (
                binary.range(of: Data("15LifelineTesting".utf8)) != nil,
                binary.range(of: Data("11LifelineCLI".utf8)) != nil
            )
        }
        #expect(!testing)
        #expect(cli, "the mangled names are not where expected")
    }
}
