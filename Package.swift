// swift-tools-version:6.1
import PackageDescription

/// Settings every Lifeline target shares: Swift 6 language mode (strict concurrency) and the upcoming
/// features the code is written for (`any` for existentials, imports internal unless marked otherwise).
let lifelineSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Lifeline",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LifelineCore", targets: ["LifelineCore"]),
        .library(name: "Lifeline", targets: ["Lifeline"]),
        .library(name: "LifelineTesting", targets: ["LifelineTesting"]),
        .library(name: "LifelineStoat", targets: ["LifelineStoat"]),
        .library(name: "LifelineStore", targets: ["LifelineStore"]),
        // An app that keeps the account's encrypted store imports this one module (LifelineStoat re-exported).
        .library(name: "LifelineStoatStore", targets: ["LifelineStoatStore"]),
        .library(name: "LifelineCLI", targets: ["LifelineCLI"]),
        .library(name: "StoatReferenceServer", targets: ["StoatReferenceServer"]),
        .executable(name: "lifeline", targets: ["lifeline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // The reference server makes the certificates of its TLS tests when they run (nothing committed expires).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.0.0"),
    ],
    targets: [
        // The spec as data and logic. Pure: no sockets, no clocks, no randomness of its own.
        .target(name: "LifelineCore", swiftSettings: lifelineSettings),
        // The runtime: the Session actor that runs the machine's actions, and the seams it runs them through.
        .target(
            name: "Lifeline",
            dependencies: [
                "LifelineCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: lifelineSettings
        ),
        // Shipped test support for Lifeline's users and its own tests.
        .target(name: "LifelineTesting", dependencies: ["Lifeline", "LifelineCore"], swiftSettings: lifelineSettings),
        // The Stoat protocol: Bonfire codec and models, the WebSocket connection (NIO channel handlers), the
        // REST client.
        .target(
            name: "LifelineStoat",
            dependencies: [
                "Lifeline",
                "LifelineCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // Uploads stream files from disk in chunks.
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                // The outbox keeps a queued file's SHA-256, and uploads it only while the file still has it.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: lifelineSettings
        ),
        // The Stoat client joined to the account's encrypted store: one import for an app that keeps one.
        .target(
            name: "LifelineStoatStore",
            dependencies: ["LifelineStoat", "LifelineStore"],
            swiftSettings: lifelineSettings
        ),
        // The encrypted account store and the sign-in flow (LifelineStore.docc). No network client: the
        // caller verifies passwords with the server through `PasswordVerifier`.
        .target(
            name: "LifelineStore",
            dependencies: [
                "LifelineCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: lifelineSettings
        ),
        .testTarget(
            name: "LifelineStoreTests",
            dependencies: [
                "LifelineStore", "LifelineCore", "TestProcess", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: lifelineSettings
        ),
        // The command line's commands; the executable below is a thin `main`. Neither links LifelineTesting:
        // what ships is no test support (LifelineCLITests' PackageGraphTests hold it to that).
        .target(
            name: "LifelineCLI",
            dependencies: [
                "Lifeline",
                "LifelineCore",
                "LifelineStoat",
                "LifelineStore",
                "LifelineStoatStore",
                "StoatReferenceServer",
                "LifelineCLIOutput",
                "LifelineBenchmarks",
                "LifelineChat",
                "LifelineTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: lifelineSettings
        ),
        // The terminal layer of `lifeline chat`: raw mode, the alternate screen, a cell grid diffed frame to frame,
        // a pure input parser, display widths per grapheme cluster. Foundation and the C library only.
        .target(name: "LifelineTerminal", swiftSettings: lifelineSettings),
        .testTarget(
            name: "LifelineTerminalTests", dependencies: ["LifelineTerminal", "TerminalProbe", "TestProcess"],
            swiftSettings: lifelineSettings
        ),
        // Tests only: what the one test process needs — children started without Foundation's `Process` (its
        // `select`-based watcher breaks above descriptor 1 023), and a descriptor limit above the run's peak.
        .target(name: "TestProcess", path: "Tests/TestProcess", swiftSettings: lifelineSettings),
        // The program the terminal tests run in a pseudo-terminal (signals, raw mode, restoring): tests only.
        .executableTarget(
            name: "TerminalProbe", dependencies: ["LifelineTerminal"], path: "Tests/TerminalProbe",
            swiftSettings: lifelineSettings
        ),
        // `lifeline chat`'s screens, key reducer and driver: pure functions of the library's public values and the
        // client's own UI state, drawn on LifelineTerminal's grid. Public API only: what the client needs and the
        // library lacks is added to the library.
        .target(
            name: "LifelineChat",
            dependencies: ["LifelineTerminal", "LifelineStoatStore"],
            swiftSettings: lifelineSettings
        ),
        .testTarget(
            name: "LifelineChatTests",
            dependencies: ["LifelineChat", "LifelineTerminal", "LifelineStoatStore"],
            // The screens' text snapshots, read by the tests from the source tree.
            exclude: ["Snapshots"],
            swiftSettings: lifelineSettings
        ),
        // What every command writes: JSON lines and tables on a standard output that never blocks a task.
        .target(name: "LifelineCLIOutput", swiftSettings: lifelineSettings),
        // `lifeline bench` and `lifeline soak` (with the benchmarks' child-process commands): the measurements,
        // their baselines and the soak's chaos, out of the command line's own target; the CLI lists the commands.
        .target(
            name: "LifelineBenchmarks",
            dependencies: [
                "Lifeline",
                "LifelineCore",
                "LifelineStoat",
                "LifelineStore",
                "LifelineStoatStore",
                "StoatReferenceServer",
                "LifelineCLIOutput",
                "LifelineChat",
                "LifelineTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                // Only for the benchmarks' bare baseline socket.
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: lifelineSettings
        ),
        .executableTarget(name: "lifeline", dependencies: ["LifelineCLI"], swiftSettings: lifelineSettings),
        // A Stoat-compatible server (REST + Bonfire) with fault injection. Imports no Lifeline module.
        .target(
            name: "StoatReferenceServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: lifelineSettings
        ),
        .testTarget(
            name: "StoatReferenceServerTests",
            dependencies: [
                "StoatReferenceServer", "TestProcess",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: lifelineSettings
        ),

        .testTarget(
            name: "LifelineCoreTests",
            dependencies: ["LifelineCore", "LifelineTesting"],
            swiftSettings: lifelineSettings
        ),
        .testTarget(
            name: "LifelineTests",
            dependencies: [
                "Lifeline", "LifelineCore", "LifelineTesting", "TestProcess",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: lifelineSettings
        ),
        .testTarget(
            name: "LifelineStoatTests",
            dependencies: [
                "LifelineStoat", "Lifeline", "LifelineCore", "LifelineStore", "LifelineStoatStore", "LifelineTesting",
                "StoatReferenceServer", "TestProcess",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The misbehaving WebSocket and TLS servers of the channel-handler socket's tests.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: lifelineSettings
        ),
        // The Swift blocks of README.md and the app guide, extracted and compiled by the DocSnippets plugin
        // (each block in a file of its own, with only its document's imports), and the README's bot run.
        .executableTarget(name: "DocSnippetExtractor", path: "Tools/DocSnippetExtractor"),
        .plugin(name: "DocSnippets", capability: .buildTool(), dependencies: ["DocSnippetExtractor"]),
        .testTarget(
            name: "DocSnippetTests",
            dependencies: [
                "LifelineStoatStore", "StoatReferenceServer", "TestProcess",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            // A snippet leaves names unused that the reader's app would use: their warnings are not the code's.
            swiftSettings: lifelineSettings + [.unsafeFlags(["-suppress-warnings"])],
            plugins: ["DocSnippets"]
        ),
        .testTarget(
            name: "LifelineCLITests",
            dependencies: [
                "LifelineCLI", "LifelineCLIOutput", "LifelineBenchmarks", "lifeline", "LifelineCore", "LifelineStoat",
                "TestProcess",
                "StoatReferenceServer",
            ],
            swiftSettings: lifelineSettings
        ),
    ]
)
