// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
// GeoGrid and Imaging optimized in debug builds too: GeoGrid's property and concurrency
// tests check hundreds of thousands of queries against brute force (a sixth of the
// suite's time unoptimized), Imaging resizes every photo the tests upload (a twentieth of
// it), and both modules are small to compile. (The server's module with -O makes the
// suite a quarter faster but its build two minutes longer.)
let optimized: [SwiftSetting] = strict + [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "sportlook",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sportlook", targets: ["SportLookCLI"]),
        .library(name: "SportLook", targets: ["SportLook"]),
        .library(name: "GeoGrid", targets: ["GeoGrid"]),
        .library(name: "Imaging", targets: ["Imaging"]),
        .executable(name: "sportlook-sample", targets: ["SportLookSample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"6.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // The Swift client, built in the same build: its tests run against the server built here.
        .package(path: "SportLookKit"),
        // `swift package generate-documentation --target SportLookKit` (CI: warnings as errors).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(name: "GeoGrid", exclude: ["README.md"], swiftSettings: optimized),
        // The machine's libjpeg-turbo and libpng (Debian: libjpeg62-turbo-dev, libpng-dev).
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        // Our C around them: libjpeg's errors jump (setjmp/longjmp), which Swift cannot cross.
        .target(name: "CImageCodecs", dependencies: ["CJPEG", "CPNG"]),
        .target(name: "Imaging", dependencies: ["CImageCodecs"], swiftSettings: optimized),
        // The machine's SQLite (Debian: libsqlite3-dev), the one copy the process links.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(
            name: "SportLook",
            dependencies: [
                "GeoGrid",
                "Imaging",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "SQLKit", package: "sql-kit"),
                "CSQLite",
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "SportLookCLI",
            dependencies: [
                "SportLook",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "GeoGridTests", dependencies: ["GeoGrid"], swiftSettings: strict),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging"], swiftSettings: strict),
        .testTarget(
            name: "SportLookTests",
            dependencies: [
                "SportLook", "GeoGrid", "Imaging",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "SportLookTestSupport", package: "SportLookKit"),
                .product(name: "SportLookAPI", package: "SportLookKit"),
            ],
            swiftSettings: strict
        ),
        // SportLookKit's own tests (SportLookKit/Tests), run by this package's `swift test`
        // against the `sportlook` built beside them, so one build serves the server and its client.
        .testTarget(
            name: "SportLookKitTests",
            dependencies: [
                .product(name: "SportLookKit", package: "SportLookKit"),
                .product(name: "SportLookTestSupport", package: "SportLookKit"),
            ],
            path: "SportLookKit/Tests/SportLookKitTests"
        ),
        // SportLookKit's command-line sample (SportLookKit/Examples), built here so that CI
        // runs two of it against a live server (scripts/sample-chat).
        .executableTarget(
            name: "SportLookSample",
            dependencies: [.product(name: "SportLookKit", package: "SportLookKit")],
            path: "SportLookKit/Examples",
            exclude: ["SwiftUI", "README.md"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
