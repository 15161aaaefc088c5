import Foundation

/// Finds the project's data folders (`Migrations/`, `Seeds/`, `Public/`) whatever
/// the working directory is.
///
/// Looked for, in order: `$SPORTLOOK_RESOURCES`; the folders above the running
/// executable (a build in `.build/…` finds its checkout); the working directory
/// and its parents; and the checkout this library was compiled from.
public struct Resources: Sendable {
    /// The folder holding `Migrations/` and `Seeds/`.
    public let root: URL

    /// Locates the resources.
    /// - Throws: ``ConfigurationError`` when no candidate holds `Migrations/`.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Resources {
        var candidates: [URL] = []
        if let explicit = environment["SPORTLOOK_RESOURCES"], !explicit.isEmpty {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
        candidates += ancestors(of: executable.deletingLastPathComponent())
        candidates += ancestors(of: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        // …/Sources/SportLook/Database/Resources.swift → the checkout.
        let source = URL(fileURLWithPath: #filePath)
        candidates.append(
            source.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent())
        for candidate in candidates {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(
                atPath: candidate.appendingPathComponent("Migrations/sqlite").path, isDirectory: &isDirectory), isDirectory.boolValue
            {
                return Resources(root: candidate.standardizedFileURL)
            }
        }
        throw ConfigurationError(
            setting: "SPORTLOOK_RESOURCES",
            message: "cannot find the Migrations/ folder; set SPORTLOOK_RESOURCES to the folder that holds Migrations/ and Seeds/")
    }

    private static func ancestors(of url: URL) -> [URL] {
        var out: [URL] = []
        var current = url.standardizedFileURL
        for _ in 0..<8 {
            out.append(current)
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { break }
            current = parent
        }
        return out
    }

    /// The migrations folder for an engine.
    public func migrations(for engine: DatabaseEngine) -> URL {
        root.appendingPathComponent("Migrations").appendingPathComponent(engine == .sqlite ? "sqlite" : "postgres")
    }

    /// The web client's folder, `Public/`.
    public var webClient: URL { root.appendingPathComponent("Public") }

    /// A file in `Seeds/`.
    public func seed(_ name: String) -> URL {
        root.appendingPathComponent("Seeds").appendingPathComponent(name)
    }
}
