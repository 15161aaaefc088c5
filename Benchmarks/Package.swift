// swift-tools-version:6.1
// The benchmark harness, `sportlook-bench`: a package of its own, so that building
// the server or its tests never compiles it. It uses the server's public API (the
// SportLook and GeoGrid libraries) through a path dependency on the package above.
import PackageDescription

let package = Package(
    name: "sportlook-benchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sportlook-bench", targets: ["SportLookBench"]),
        .executable(name: "sportlook-counted", targets: ["SportLookCounted"]),
    ],
    dependencies: [
        // Named, so that the identity does not depend on the folder a clone lives in.
        .package(name: "sportlook", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // The server (or a bare Hummingbird /health) from a synchronous main, for
        // Benchmarks/instructions: valgrind 3.19 dies in the rt_sigsuspend an async
        // main's dispatch_main waits in.
        .executableTarget(
            name: "SportLookCounted",
            dependencies: [
                .product(name: "SportLook", package: "sportlook"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Counted"
        ),
        .executableTarget(
            name: "SportLookBench",
            dependencies: [
                .product(name: "SportLook", package: "sportlook"),
                .product(name: "GeoGrid", package: "sportlook"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tool",
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
