// swift-tools-version:6.1
import PackageDescription

/// Settings every Lifeline target shares: Swift 6 language mode (strict concurrency) and the upcoming
/// features STYLE.md asks for.
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
        .library(name: "LifelineCLI", targets: ["LifelineCLI"]),
        .library(name: "StoatReferenceServer", targets: ["StoatReferenceServer"]),
        .executable(name: "lifeline", targets: ["lifeline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ],
    targets: [
        // The spec as data and logic. Pure: no sockets, no clocks, no randomness of its own.
        .target(name: "LifelineCore", swiftSettings: lifelineSettings),
        // The command line's commands; the executable below is a thin `main`.
        .target(
            name: "LifelineCLI",
            dependencies: [
                "LifelineCore",
                "StoatReferenceServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
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
            ],
            swiftSettings: lifelineSettings
        ),
        .testTarget(
            name: "StoatReferenceServerTests",
            dependencies: [
                "StoatReferenceServer",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: lifelineSettings
        ),
    ]
)
