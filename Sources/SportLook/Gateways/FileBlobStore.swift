import Foundation
import NIOPosix

/// Media in a folder: `ROOT/ab/abcdef….jpg` (the first two hex digits as a
/// subfolder, so no folder holds more than a few thousand files per million objects).
///
/// An object is written to a temporary file and renamed into place, so a reader sees
/// the whole object or none of it, and a crash leaves at most a stray temporary file.
///
/// The file calls block, so they run in NIO's blocking pool: a request's handler runs
/// on its connection's event loop, which a slow disk must not hold up.
struct FileBlobStore: BlobStore {
    let root: URL
    private let pool = NIOThreadPool.singleton

    init(root: String) throws {
        self.root = URL(fileURLWithPath: root, isDirectory: true)
        try FileManager.default.createDirectory(at: self.root, withIntermediateDirectories: true)
    }

    func path(_ key: String) -> URL {
        precondition(isBlobKey(key), "not a blob key: \(key)")
        return root.appendingPathComponent(String(key.prefix(2)), isDirectory: true).appendingPathComponent(key)
    }

    func put(_ key: String, bytes: [UInt8], contentType: String) async throws {
        try await pool.runIfActive { try putHere(key, bytes: bytes) }
    }

    private func putHere(_ key: String, bytes: [UInt8]) throws {
        let target = path(key)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString).tmp")
        try Data(bytes).write(to: temporary)
        if rename(temporary.path, target.path) != 0 {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    func get(_ key: String, range: ClosedRange<Int>?) async throws -> BlobRead? {
        try await pool.runIfActive { try getHere(key, range: range) }
    }

    private func getHere(_ key: String, range: ClosedRange<Int>?) throws -> BlobRead? {
        guard let handle = try? FileHandle(forReadingFrom: path(key)) else { return nil }
        defer { try? handle.close() }
        let size = Int(try handle.seekToEnd())
        let wanted = range.map { $0.clamped(to: 0...max(0, size - 1)) } ?? 0...max(0, size - 1)
        try handle.seek(toOffset: UInt64(wanted.lowerBound))
        let data = size == 0 ? Data() : try handle.read(upToCount: wanted.count) ?? Data()
        return BlobRead(bytes: Array(data), totalSize: size)
    }

    func size(_ key: String) async throws -> Int? {
        try await pool.runIfActive { [path = path(key).path] in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
            return (attributes[.size] as? NSNumber)?.intValue
        }
    }

    func keys() async throws -> [String] {
        try await pool.runIfActive { [root] in
            let names = FileManager.default.enumerator(atPath: root.path)?.allObjects.compactMap { $0 as? String } ?? []
            return names.compactMap { $0.split(separator: "/").last.map(String.init) }.filter { isBlobKey($0) }.sorted()
        }
    }

    func delete(_ key: String) async throws {
        try await pool.runIfActive { [target = path(key)] in
            do {
                try FileManager.default.removeItem(at: target)
            } catch CocoaError.fileNoSuchFile {
                return
            }
        }
    }
}
