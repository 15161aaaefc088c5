import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SQLKit
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

/// A WebSocket client that can stop reading: a plain TCP socket with a small
/// receive buffer, speaking just enough of the protocol. Its calls block: make
/// them through `blocking`.
final class RawSocket: Sendable {
    let fd: Int32

    /// Opens the socket with `token` as a bearer token, or as the web client's session cookie (`cookie`).
    init(port: Int, token: String, origin: String? = nil, host: String = "127.0.0.1", cookie: Bool = false) throws {
        fd = try connectLoopback(port: port, receiveBuffer: 4_096)
        let credential = cookie ? "Cookie: theme=dark; \(SessionCookie.name)=\(token)" : "Authorization: Bearer \(token)"
        let request =
            "GET /v1/ws HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(credential)\r\n\(origin.map { "Origin: \($0)\r\n" } ?? "")\r\n"
        _ = request.withCString { Glibc.send(fd, $0, strlen($0), 0) }
        var head = [UInt8]()
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard recv(fd, &byte, 1, 0) == 1 else { throw ClusterError("no upgrade answer") }
            head.append(byte)
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw ClusterError("upgrade refused") }
    }

    deinit { close(fd) }

    /// Sends one masked text frame.
    func send(_ text: String) throws {
        try sendFrame(opcode: 0x1, Array(text.utf8))
    }

    /// Sends one masked frame (0x1 text, 0x9 ping, 0xA pong).
    func sendFrame(opcode: UInt8, _ payload: [UInt8]) throws {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = [1, 2, 3, 4]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        guard Glibc.send(fd, frame, frame.count, 0) == frame.count else { throw ClusterError("send failed") }
    }

    /// Reads the next frame from the server (unmasked), waiting up to 10 s; `nil` once it closed.
    func readFrame() throws -> (opcode: UInt8, payload: [UInt8])? {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func read(_ count: Int) throws -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
                if n == 0 { return nil }
                guard n > 0 else { throw ClusterError("no frame within 10 s (errno \(errno))") }
                got += n
            }
            return bytes
        }
        guard let head = try read(2) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let extended = try read(2) else { return nil }
            length = Int(extended[0]) << 8 | Int(extended[1])
        }
        guard let payload = try read(length) else { return nil }
        return (head[0] & 0x0F, payload)
    }

    /// Reads everything until the server closes; `true` if it did (rather than the read timing out).
    func drainUntilClosed() throws -> Bool {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var all = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { return true }
            if n < 0 {
                let code = errno
                return code == ECONNRESET
            }
            all += buffer[0..<min(n, 16)]
        }
    }
}
