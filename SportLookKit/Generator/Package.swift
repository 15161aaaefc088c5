// swift-tools-version:6.1
// Apple's swift-openapi-generator, to regenerate SportLookKit's client from the
// server's openapi.yaml (`SportLookKit/generate`). A package of its own: neither the
// server nor an app that uses SportLookKit ever builds the generator.
import PackageDescription

let package = Package(
    name: "sportlookkit-generator",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3")
    ],
    targets: []
)
