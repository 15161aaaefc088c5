import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Log lines on standard error, as swift-log's `StreamLogHandler` writes them
/// (`2026-11-27T10:19:59+0000 warning sportlook: key=value … [SportLook] message`),
/// but metadata is formatted only when a line is written. `StreamLogHandler` formats
/// its metadata again whenever an item changes, and Hummingbird gives every request's
/// logger its own `hb.request.id`: that cost each request about 7,700 instructions
/// (4% of a `/health`) for lines that, at the usual levels, are never written.
public struct LogLines: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let descriptor: Int32
    /// One line at a time from this process, whole (as `StreamLogHandler` locks its file).
    private static let writing = Mutex(())

    /// - Parameter descriptor: Where the lines go: standard error (a test gives a pipe).
    public init(
        label: String, metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider, descriptor: Int32 = STDERR_FILENO
    ) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.descriptor = descriptor
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = Self.line(event, label: label, metadata: effectiveMetadata(event), at: time(nil))
        Self.writing.withLock { _ in
            line.withUTF8 { bytes in
                var rest = UnsafeRawBufferPointer(bytes)
                while !rest.isEmpty {
                    let written = write(descriptor, rest.baseAddress, rest.count)
                    if written < 0 && errno == EINTR { continue }
                    // Where the log cannot be written (closed, full), the line is dropped.
                    guard written > 0 else { return }
                    rest = UnsafeRawBufferPointer(rebasing: rest[written...])
                }
            }
        }
    }

    /// The handler's metadata, then the provider's, then the line's own (each over the
    /// one before), and the error's message and type.
    func effectiveMetadata(_ event: LogEvent) -> Logger.Metadata {
        var all = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { all.merge(provided) { $1 } }
        if let own = event.metadata, !own.isEmpty { all.merge(own) { $1 } }
        if let error = event.error {
            all["error.message"] = "\(error)"
            all["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        return all
    }

    /// One line: local time, level, label, the metadata sorted by key, the source, the message.
    static func line(_ event: LogEvent, label: String, metadata: Logger.Metadata, at seconds: time_t) -> String {
        var line = timestamp(seconds) + " \(event.level)" + (label.isEmpty ? "" : " ") + label + ":"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
        line += " [\(event.source)] \(event.message)\n"
        return line
    }

    private static func timestamp(_ seconds: time_t) -> String {
        var seconds = seconds
        var local = tm()
        guard localtime_r(&seconds, &local) != nil else { return "<unknown>" }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            let count = strftime(buffer.baseAddress!, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
    }
}
