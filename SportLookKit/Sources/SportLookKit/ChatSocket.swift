import Foundation

#if canImport(HummingbirdWSClient)
    import HummingbirdWSClient
    import Logging
    import NIOWebSocket
#endif

/// An open WebSocket to the server's `/v1/ws`: text frames out, text frames in.
public protocol ChatSocket: Sendable {
    /// The frames received, in order; the stream ends when the socket closes.
    var received: AsyncStream<String> { get }
    /// Sends a text frame.
    func send(_ text: String) async throws
    /// Closes the socket (the received stream then ends).
    func close() async
}

/// Opens chat sockets: ``standard`` (URLSession on Apple platforms, SwiftNIO on
/// Linux), or one of the app's own.
public protocol ChatSocketConnector: Sendable {
    /// Opens a socket to `url` with the bearer `token`; returns once it is open.
    func connect(to url: URL, token: String) async throws -> any ChatSocket
}

extension ChatSocketConnector where Self == StandardChatSocketConnector {
    /// URLSession's WebSocket on Apple platforms; SwiftNIO's (Hummingbird's client) on Linux.
    public static var standard: StandardChatSocketConnector { StandardChatSocketConnector() }
}

/// Why a socket could not open or send.
public enum ChatSocketError: Error, Sendable {
    /// The socket is closed: nothing more can be sent on it.
    case closed
    /// The connection ended before the WebSocket upgrade; why.
    case notOpened(String)
}

#if canImport(Darwin)
    /// A socket through URLSession's `URLSessionWebSocketTask`.
    public struct StandardChatSocketConnector: ChatSocketConnector {
        public init() {}

        /// Opens the socket; a cancelled wait (the session's connect timeout) cancels the task.
        public func connect(to url: URL, token: String) async throws -> any ChatSocket {
            var request = URLRequest(url: url)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let task = URLSession.shared.webSocketTask(with: request)
            task.resume()
            // The first ping waits for the handshake: a refused upgrade fails here.
            try await withTaskCancellationHandler {
                try await task.ping()
            } onCancel: {
                task.cancel(with: .goingAway, reason: nil)
            }
            return URLSessionChatSocket(task: task)
        }
    }

    final class URLSessionChatSocket: ChatSocket, @unchecked Sendable {
        // URLSessionWebSocketTask is thread-safe; it is only sent and received on.
        private let task: URLSessionWebSocketTask
        let received: AsyncStream<String>
        private let keepalive: Task<Void, Never>

        /// Pings this often; a ping unanswered by the next is a dead connection, closed.
        static let pingInterval: Duration = .seconds(20)

        init(task: URLSessionWebSocketTask) {
            self.task = task
            let (stream, continuation) = AsyncStream.makeStream(of: String.self)
            received = stream
            Task {
                while true {
                    do {
                        switch try await task.receive() {
                        case .string(let text): continuation.yield(text)
                        case .data(let data): continuation.yield(String(decoding: data, as: UTF8.self))
                        @unknown default: break
                        }
                    } catch {
                        continuation.finish()
                        return
                    }
                }
            }
            // A silently lost network (a NAT timeout, Wi-Fi to cellular) is noticed.
            keepalive = Task {
                while !Task.isCancelled {
                    do { try await Task.sleep(for: Self.pingInterval) } catch { return }
                    let answered = await withTaskGroup(of: Bool.self) { group in
                        group.addTask { (try? await task.ping()) != nil }
                        group.addTask {
                            try? await Task.sleep(for: Self.pingInterval)
                            return false
                        }
                        let first = await group.next() ?? false
                        group.cancelAll()
                        return first
                    }
                    if !answered {
                        task.cancel(with: .goingAway, reason: nil)
                        return
                    }
                }
            }
        }

        func send(_ text: String) async throws { try await task.send(.string(text)) }

        func close() async {
            keepalive.cancel()
            task.cancel(with: .normalClosure, reason: nil)
        }
    }

    extension URLSessionWebSocketTask {
        fileprivate func ping() async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                sendPing { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
        }
    }
#else
    /// A socket through SwiftNIO (Hummingbird's WebSocket client).
    public struct StandardChatSocketConnector: ChatSocketConnector {
        /// The standard sockets of this platform.
        public init() {}

        /// Opens the socket; a cancelled wait (the session's connect timeout) ends the attempt.
        public func connect(to url: URL, token: String) async throws -> any ChatSocket {
            try await NIOChatSocket.open(url, token: token)
        }
    }

    /// The client runs in a task of its own; frames to send go through a stream it reads.
    final class NIOChatSocket: ChatSocket, Sendable {
        let received: AsyncStream<String>
        private let outgoing: AsyncStream<String>.Continuation
        private let task: Task<Void, Never>

        private init(received: AsyncStream<String>, outgoing: AsyncStream<String>.Continuation, task: Task<Void, Never>) {
            self.received = received
            self.outgoing = outgoing
            self.task = task
        }

        static func open(_ url: URL, token: String) async throws -> NIOChatSocket {
            let (inbound, inboundContinuation) = AsyncStream.makeStream(of: String.self)
            let (toSend, toSendContinuation) = AsyncStream.makeStream(of: String.self)
            let (opened, openedContinuation) = AsyncStream.makeStream(of: Result<Void, any Error>.self)
            var logger = Logger(label: "SportLookKit.ChatSocket")
            logger.logLevel = .critical
            let task = Task {
                do {
                    _ = try await WebSocketClient.connect(
                        url: url.absoluteString,
                        configuration: .init(
                            maxFrameSize: 1 << 20, additionalHeaders: [.authorization: "Bearer \(token)"],
                            // A connection that went silent (a lost network sends no FIN) is noticed and closed.
                            autoPing: .enabled(timePeriod: .seconds(20))
                        ),
                        logger: logger
                    ) { inbound, outbound, _ in
                        openedContinuation.yield(.success(()))
                        // Frames out, in order, until the socket closes or is closed.
                        let writer = Task {
                            for await text in toSend {
                                try? await outbound.write(.text(text))
                            }
                            try? await outbound.close(.normalClosure, reason: nil)
                        }
                        defer { writer.cancel() }
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            if case .text(let text) = message { inboundContinuation.yield(text) }
                        }
                    }
                } catch {
                    openedContinuation.yield(.failure(error))
                }
                openedContinuation.finish()
                inboundContinuation.finish()
            }
            // Given up (the session's connect timeout): the connection attempt ends too.
            return try await withTaskCancellationHandler {
                for await result in opened {
                    switch result {
                    case .success: return NIOChatSocket(received: inbound, outgoing: toSendContinuation, task: task)
                    case .failure(let error): throw error
                    }
                }
                task.cancel()
                throw ChatSocketError.notOpened("the connection closed before the upgrade")
            } onCancel: {
                task.cancel()
                openedContinuation.finish()
            }
        }

        func send(_ text: String) async throws {
            guard case .enqueued = outgoing.yield(text) else { throw ChatSocketError.closed }
        }

        func close() async {
            outgoing.finish()
            task.cancel()
        }
    }
#endif
