import Foundation
import SportLookTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on loopback in front of the server whose connections the test cuts at
/// any moment, as a lost network does: both directions shut at once, whatever was in
/// flight lost, mid-frame as often as not.
final class CuttingProxy: @unchecked Sendable {
    let port: Int
    private let target: Int
    private let listener: Int32
    private let lock = NSLock()
    private var open: [Int32: Int32] = [:]
    private(set) var cuts = 0

    init(to target: Int) throws {
        self.target = target
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        guard bound else { throw SupportError("the proxy could not listen") }
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Cuts every open connection now.
    func cutAll() {
        lock.withLock {
            for (client, upstream) in open {
                shutdown(client, Int32(SHUT_RDWR))
                shutdown(upstream, Int32(SHUT_RDWR))
            }
            cuts += open.count
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        cutAll()
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                close(client)
                close(upstream)
                continue
            }
            lock.withLock { open[client] = upstream }
            let finished = Counter()
            for (from, to) in [(client, upstream), (upstream, client)] {
                Thread.detachNewThread { [self] in
                    pump(from: from, to: to)
                    shutdown(from, Int32(SHUT_RDWR))
                    shutdown(to, Int32(SHUT_RDWR))
                    // The second pump to end closes both.
                    if finished.add() == 2 {
                        lock.withLock { _ = open.removeValue(forKey: client) }
                        close(client)
                        close(upstream)
                    }
                }
            }
        }
    }

    private func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            var written = 0
            while written < count {
                let n = buffer.withUnsafeBytes { write(to, $0.baseAddress! + written, count - written) }
                guard n > 0 else { return }
                written += n
            }
        }
    }
}
