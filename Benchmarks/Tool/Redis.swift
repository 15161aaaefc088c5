import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal blocking Redis client (RESP2 over TCP), enough for GEOADD/GEOSEARCH/INFO.
final class RedisConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var position = 0

    init(host: String = "127.0.0.1", port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(port).bigEndian
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw BenchError("cannot connect to Redis on \(port)") }
    }

    deinit { close(fd) }

    enum Reply {
        case simple(String), error(String), integer(Int), bulk([UInt8]?), array([Reply]?)

        var string: String? {
            switch self {
            case .simple(let s): return s
            case .bulk(let b?): return String(decoding: b, as: UTF8.self)
            default: return nil
            }
        }
    }

    static func encode(_ arguments: [String]) -> [UInt8] {
        var out = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            let bytes = Array(argument.utf8)
            out += Array("$\(bytes.count)\r\n".utf8) + bytes + [13, 10]
        }
        return out
    }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw BenchError("Redis send failed") }
            sent += n
        }
    }

    /// Sends several commands at once and reads all replies.
    func pipeline(_ commands: [[String]]) throws -> [Reply] {
        try send(commands.flatMap(Self.encode))
        return try commands.map { _ in try read() }
    }

    func command(_ arguments: String...) throws -> Reply {
        try pipeline([arguments])[0]
    }

    private func fill() throws {
        if position > 0 && position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            position = 0
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { throw BenchError("Redis closed the connection") }
        buffer += chunk[0..<n]
    }

    private func line() throws -> [UInt8] {
        while true {
            if let end = buffer[position...].firstIndex(of: 13), end + 1 < buffer.count {
                let out = Array(buffer[position..<end])
                position = end + 2
                return out
            }
            try fill()
        }
    }

    private func read() throws -> Reply {
        let header = try line()
        guard let kind = header.first else { throw BenchError("empty Redis reply") }
        let rest = String(decoding: header.dropFirst(), as: UTF8.self)
        switch kind {
        case UInt8(ascii: "+"): return .simple(rest)
        case UInt8(ascii: "-"): return .error(rest)
        case UInt8(ascii: ":"): return .integer(Int(rest) ?? 0)
        case UInt8(ascii: "$"):
            let length = Int(rest) ?? -1
            if length < 0 { return .bulk(nil) }
            while buffer.count - position < length + 2 { try fill() }
            let out = Array(buffer[position..<(position + length)])
            position += length + 2
            return .bulk(out)
        case UInt8(ascii: "*"):
            let count = Int(rest) ?? -1
            if count < 0 { return .array(nil) }
            return .array(try (0..<count).map { _ in try read() })
        default: throw BenchError("unexpected Redis reply \(kind)")
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
