import Foundation
import Synchronization

/// Whether the database takes writes, told to this instance's sockets.
extension ChatHub {
    /// The database stopped (`false`) or resumed taking writes: every socket is told
    /// (``Frames/database(writable:)``), and one opened later while writes are refused
    /// (``register(_:)``); under the one lock, so no socket misses a turn or gets two in
    /// the wrong order. A turn older than the last one told is dropped. A socket too far
    /// behind to take the frame is closed: it is told as it opens again.
    func databaseTurned(writable: Bool, epoch: Int) {
        let frame = Frames.database(writable: writable)
        let behind = state.withLock { s -> [ChatConnection] in
            guard epoch > s.writableEpoch else { return [] }
            s.writableEpoch = epoch
            s.writable = writable
            return s.connections.values.filter { !$0.queue.push(frame) }
        }
        for connection in behind { connection.end(.tooSlow) }
    }
}
