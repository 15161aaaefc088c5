import Foundation

/// Media in a folder: `ROOT/ab/abcdef….jpg` (the first two hex digits as a
/// subfolder, so no folder holds more than a few thousand files per million objects).
///
/// An object is written to a temporary file and renamed into place, so a reader sees
/// the whole object or none of it, and a crash leaves at most a stray temporary file.
struct FileBlobStore: BlobStore {
    let root: URL

    init(root: String) throws {
        self.root = URL(fileURLWithPath: root, isDirectory: true)
        try FileManager.default.createDirectory(at: self.root, withIntermediateDirectories: true)
    }

    func path(_ key: String) -> URL {
        precondition(isBlobKey(key), "not a blob key: \(key)")
        return root.appendingPathComponent(String(key.prefix(2)), isDirectory: true).appendingPathComponent(key)
    }

    func put(_ key: String, bytes: [UInt8], contentType: String) async throws {
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
        guard let handle = try? FileHandle(forReadingFrom: path(key)) else { return nil }
        defer { try? handle.close() }
        let size = Int(try handle.seekToEnd())
        let wanted = range.map { $0.clamped(to: 0...max(0, size - 1)) } ?? 0...max(0, size - 1)
        try handle.seek(toOffset: UInt64(wanted.lowerBound))
        let data = size == 0 ? Data() : try handle.read(upToCount: wanted.count) ?? Data()
        return BlobRead(bytes: Array(data), totalSize: size)
    }

    func size(_ key: String) async throws -> Int? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path(key).path) else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }

    func keys() async throws -> [String] {
        let names = FileManager.default.enumerator(atPath: root.path)?.allObjects.compactMap { $0 as? String } ?? []
        return names.compactMap { $0.split(separator: "/").last.map(String.init) }.filter { isBlobKey($0) }.sorted()
    }

    func delete(_ key: String) async throws {
        do {
            try FileManager.default.removeItem(at: path(key))
        } catch CocoaError.fileNoSuchFile {
            return
        }
    }
}
