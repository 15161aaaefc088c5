import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOWebSocket
import SportLookAPI
import Synchronization

/// A WebSocket client for tests: frames received are kept, frames to send are queued.
final class TestSocket: Sendable {
    /// Frames as received, decoded once, each with its text (for failure messages).
    private let received = Mutex<[(text: String, frame: API.Frame)]>([])
    /// Frames that did not decode, with the reason: the next read of the frames fails with them.
    private let undecodable = Mutex<[String]>([])
    private let seqs = Mutex<[Int]>([])
    private let outgoing: AsyncStream<String>.Continuation
    private let outgoingStream: AsyncStream<String>
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let state = Mutex<(open: Bool, closed: Bool, error: String?)>((false, false, nil))
    /// The close frame the server sent: its code and reason.
    private let closeFrame = Mutex<(code: Int, reason: String?)?>(nil)

    init() {
        (outgoingStream, outgoing) = AsyncStream.makeStream(of: String.self)
    }

    /// Connects to `url` (waiting until the upgrade succeeded or failed).
    static func connect(_ url: String, token: String? = nil, origin: String? = nil) async throws -> TestSocket {
        let socket = TestSocket()
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        if let origin { headers[.origin] = origin }
        var logger = Logger(label: "test-socket")
        logger.logLevel = .critical
        let stream = socket.outgoingStream
        let (opened, openedContinuation) = AsyncStream.makeStream(of: Bool.self)
        let running = Task {
            do {
                let close = try await WebSocketClient.connect(
                    url: url, configuration: .init(maxFrameSize: 1 << 16, additionalHeaders: headers), logger: logger
                ) { inbound, outbound, _ in
                    socket.state.withLock { $0.open = true }
                    openedContinuation.yield(true)
                    let writer = Task {
                        for await frame in stream { try? await outbound.write(.text(frame)) }
                        try? await outbound.close(.normalClosure, reason: nil)
                    }
                    defer { writer.cancel() }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .text(let text) = message { socket.receive(text) }
                    }
                }
                if let close { socket.closeFrame.withLock { $0 = (Int(UInt16(webSocketErrorCode: close.closeCode)), close.reason) } }
            } catch {
                socket.state.withLock { $0.error = "\(error)" }
            }
            socket.state.withLock { $0.closed = true }
            openedContinuation.yield(false)
        }
        socket.task.withLock { $0 = running }
        var iterator = opened.makeAsyncIterator()
        guard await iterator.next() == true else {
            throw ClusterError("socket did not open: \(socket.state.withLock { $0.error ?? "closed" })")
        }
        return socket
    }

    /// Connects and subscribes to `room` from its first message, and waits until subscribed.
    /// A socket subscribed to `room` from its start; `pollVotes` takes a poll's votes alone (`poll_votes`).
    static func subscribed(_ url: String, token: String, to room: String, pollVotes: Bool = false) async throws -> TestSocket {
        let socket = try await connect(url, token: token)
        var frame: [String: Any] = ["type": "subscribe", "room_id": room, "after_seq": 0]
        if pollVotes { frame["poll_votes"] = true }
        socket.send(frame)
        try await socket.waitFor("subscribed") { $0.type == "subscribed" }
        return socket
    }

    private func receive(_ text: String) {
        ContractLog.record(frame: text)
        let frame: API.Frame
        do {
            frame = try API.decoder.decode(API.Frame.self, from: Data(text.utf8))
        } catch {
            undecodable.withLock { $0.append("\(text): \(error)") }
            return
        }
        if let message = frame.message { seqs.withLock { $0.append(message.message.seq) } }
        received.withLock { $0.append((text: text, frame: frame)) }
    }

    /// Fails if a frame did not decode.
    private func checkDecoded() throws {
        if let failure = undecodable.withLock({ $0.first }) { throw ClusterError("a frame did not decode: \(failure)") }
    }

    func send(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object) { outgoing.yield(String(decoding: data, as: UTF8.self)) }
    }

    /// Closes from the client side.
    func close() async {
        outgoing.finish()
        let running = task.withLock { $0 }
        await running?.value
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// The server's close code and reason, once it closed the socket.
    var closedWith: (code: Int, reason: String?)? { closeFrame.withLock { $0 } }

    /// Sends raw text (not JSON-encoded by the helper).
    func send(text: String) { outgoing.yield(text) }

    /// Every frame received so far, decoded.
    var frames: [API.Frame] {
        get throws {
            try checkDecoded()
            return received.withLock { $0.map { $0.frame } }
        }
    }

    /// Every frame received so far, as the server sent it.
    var texts: [String] { received.withLock { $0.map(\.text) } }

    /// The `seq` of every chat message frame received, in order.
    var messageSeqs: [Int] {
        get throws {
            try checkDecoded()
            return seqs.withLock { $0 }
        }
    }

    /// Waits for a frame matching `predicate` and returns it.
    @discardableResult
    func waitFor(_ description: String, timeout: Duration = .seconds(60), _ predicate: @escaping @Sendable (API.Frame) throws -> Bool)
        async throws -> API.Frame
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let frame = try frames.first(where: predicate) { return frame }
            // Closed: no frame comes any more; the failure says how it closed.
            if isClosed {
                if let frame = try frames.first(where: predicate) { return frame }
                let error = state.withLock { $0.error ?? "no close frame" }
                let how = closedWith.map { "closed \($0.code) \($0.reason ?? "")" } ?? "closed (\(error))"
                throw ClusterError("no frame: \(description); \(how); got \(received.withLock { $0.suffix(5).map { $0.text } })")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ClusterError("no frame: \(description); got \(received.withLock { $0.suffix(5).map { $0.text } })")
    }
}
