import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A Hummingbird server on a free loopback port, for the fakes tests stand up
/// (push gateway, identity providers, Facebook's Graph API).
final class LocalServer: Sendable {
    private let task = Mutex<Task<Void, any Error>?>(nil)

    /// Starts serving `router`; returns the port.
    func start(_ router: Router<BasicRequestContext>, label: String) async throws -> Int {
        var logger = Logger(label: label)
        // Stopping a fake cancels its connections, which Hummingbird logs as errors.
        logger.logLevel = .critical
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger
        )
        task.withLock { $0 = Task { try await app.run() } }
        var iterator = stream.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw ClusterError("\(label) did not start") }
        return port
    }

    func stop() {
        task.withLock { $0?.cancel() }
    }
}
