import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Looks after this instance's sockets and keeps its presence fresh.
struct ChatHubService: Service {
    let hub: ChatHub
    /// This instance's name in the presence table.
    let instanceID: String

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await hub.sockets.run() }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(30))
                        do {
                            try await hub.chat.heartbeat(instance: instanceID)
                        } catch is CancellationError {
                            return
                        } catch {
                            hub.logger.warning("chat presence heartbeat failed", metadata: ["error": "\(error)"])
                        }
                    }
                }
            }
        }
    }
}
