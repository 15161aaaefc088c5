// swift-tools-version:6.1
// SportLookKit: the Swift client of a SportLook server, for iOS 17+, macOS 14+ and
// Linux. A package of its own (building the server never builds it): a facade of plain
// models over the REST API (`client.events`, `client.chat`…), the API itself generated
// from the server's openapi.yaml by Apple's swift-openapi-generator and kept internal (the
// generated code is committed, so an app's build needs no plugin: SportLookKit/generate
// makes it again), and ChatSession, the chat protocol's exactly-once client.
import PackageDescription

let package = Package(
    name: "SportLookKit",
    platforms: [.iOS(.v17), .macOS(.v14)],
    products: [
        .library(name: "SportLookKit", targets: ["SportLookKit"]),
        // For tests on macOS and Linux: a real `sportlook serve` on a free loopback port,
        // waiting for a condition, and a test image (the server's tests and these share it).
        .library(name: "SportLookTestSupport", targets: ["SportLookTestSupport"]),
        // The contract's types alone (components/schemas, generated): the server's tests
        // read its answers as these.
        .library(name: "SportLookAPI", targets: ["SportLookAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `swift package generate-documentation --target SportLookKit`.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The generated types and client (SportLookKit/generate).
        .target(
            name: "SportLookAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")]
        ),
        .target(
            name: "SportLookKit",
            dependencies: [
                "SportLookAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(
                    name: "OpenAPIURLSession", package: "swift-openapi-urlsession",
                    condition: .when(platforms: [.iOS, .macOS, .tvOS, .watchOS, .visionOS])),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client", condition: .when(platforms: [.linux])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log", condition: .when(platforms: [.linux])),
            ]
        ),
        .target(name: "SportLookTestSupport"),
        // The command-line sample (`swift run SportLookSample --server …` here; at the
        // repository's root, `swift run sportlook-sample`); the SwiftUI
        // sample beside it builds on Apple platforms only, in an app project.
        .executableTarget(
            name: "SportLookSample",
            dependencies: ["SportLookKit"],
            path: "Examples",
            exclude: ["SwiftUI", "README.md"]
        ),
        .testTarget(
            name: "SportLookKitTests",
            dependencies: ["SportLookKit", "SportLookTestSupport"]
        ),
    ]
)
