import Foundation

/// The connection: opening the socket, reading its frames, sending at the rules' pace,
/// and waiting out the pause the rules give after a drop.
extension ChatSession {
    func run(_ run: Int) async {
        while !stopped && !Task.isCancelled && run == self.runID {
            rules.connecting(now: .now)
            apply()
            do {
                guard let token = await token() else { throw ChatSessionError.noToken }
                let socket = try await open(token: token)
                // Stopped (or stopped and started again) while it opened: not this run's any more.
                guard !stopped, !Task.isCancelled, run == self.runID else {
                    await socket.close()
                    break
                }
                self.socket = socket
                let (frames, continuation) = AsyncStream.makeStream(of: (SocketCommand, ContinuousClock.Instant).self)
                outgoing = continuation
                let sender = Task {
                    for await (frame, at) in frames {
                        if at > .now { try? await Task.sleep(until: at, clock: .continuous) }
                        do { try await socket.send(frame.text) } catch {
                            await socket.close()
                            break
                        }
                    }
                }
                rules.connected(now: .now)
                apply()
                for await text in socket.received { received(text) }
                continuation.finish()
                sender.cancel()
                await socket.close()
            } catch {
                // A failed connection is one more try; the pause grows.
            }
            guard run == self.runID else { break }
            socket = nil
            outgoing = nil
            guard !stopped && !Task.isCancelled else { break }
            let delay = rules.lost(now: .now, jitter: Double.random(in: 0...1))
            apply()
            try? await Task.sleep(for: .seconds(delay))
        }
    }

    /// Opens a socket, or fails once `connectTimeout` has passed (a connection cut
    /// during the handshake may otherwise never say so).
    private func open(token: String) async throws -> any ChatSocket {
        let connector = connector
        let url = url
        let timeout = rules.backoff.connectTimeout
        return try await withThrowingTaskGroup(of: (any ChatSocket)?.self) { group in
            group.addTask { try await connector.connect(to: url, token: token) }
            group.addTask {
                try await Task.sleep(for: .seconds(timeout))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let socket = first else { throw ChatSessionError.connectTimedOut }
            return socket
        }
    }
}
