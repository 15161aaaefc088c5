import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Following the change feed: what each committed change means for the sockets here.
extension ChatHub {
    /// Follows a change (the change feed hands them over one at a time, in order,
    /// whether they were committed here or on another instance).
    func handle(_ message: Change) async {
        switch message {
        case .chat(let room, let seq):
            for connection in members(of: room) { await connection.offer(room: room, seq: seq) }
            for connection in watchers(of: room) { await connection.roomActivity(room) }
        case .chatChange(let room, let change):
            noteChange(room, upTo: change)
            await offerChange(room, change)
        case .roomState(let user, let room):
            for connection in connections(of: user) { await connection.roomActivity(room, reload: true) }
        case .typing(let room, let user, let name):
            for connection in members(of: room) where connection.userID != user && connection.follows(room) && !connection.hides(user) {
                connection.send(ephemeral: Frames.typing(room: connection.address(of: room), user: user, name: name))
            }
        case .read(let room, let user, let seq):
            for connection in members(of: room) where connection.userID != user && connection.follows(room) && !connection.hides(user) {
                connection.send(ephemeral: Frames.read(room: connection.address(of: room), user: user, seq: seq))
            }
            // The reader's unread count changed on their other devices.
            for connection in connections(of: user) { await connection.roomActivity(room) }
        case .session(let id):
            for connection in connections(session: id) { connection.end(.sessionEnded) }
        case .notification(let user, let id):
            let targets = connections(of: user)
            guard !targets.isEmpty else { return }
            let item: InboxItem?
            do {
                item = try await inbox.item(id)
            } catch {
                logger.warning("could not read a notification for live delivery", metadata: ["notification": "\(id)", "error": "\(error)"])
                return
            }
            guard let item else { return }
            let frame = Frames.notification(item)
            for connection in targets { connection.send(ephemeral: frame) }
        case .attendance(let user), .membership(let user, _):
            // Going or not, in the group or not: rooms the user may no longer be in end.
            for connection in connections(of: user) {
                await connection.recheckMembership()
                await connection.reloadRooms()
            }
        case .block(let blocker, _):
            // The kept messages carry who each poll is hidden from: read again after a block.
            state.withLock { s in
                s.recent = [:]
                s.changeReads = [:]
                for room in s.rooms.keys { s.generation[room, default: 0] += 1 }
            }
            // The blocked person's conversation leaves the blocker's chats list.
            for connection in connections(of: blocker) {
                await connection.reloadBlocks()
                await connection.reloadRooms()
            }
        case .resync:
            // Sessions may have ended while the bus was away: their sockets close now.
            let all = state.withLock { Array($0.connections.values) }
            do {
                let ended = try await accounts.endedSessions(among: all.map(\.session))
                for connection in all where ended.contains(connection.session) {
                    connection.end(.sessionEnded)
                }
            } catch {
                logger.warning("resync could not recheck the sockets' sessions", metadata: ["error": "\(error)"])
            }
            let rooms = state.withLock { s in
                // Renames may have been missed too.
                s.recent = [:]
                s.names = [:]
                s.renames = [:]
                s.changeReads = [:]
                for room in s.rooms.keys { s.generation[room, default: 0] += 1 }
                return Array(s.rooms.keys)
            }
            for id in rooms {
                let room: Room
                do {
                    guard let found = try await chat.room(id) else { continue }
                    room = found
                } catch {
                    logger.warning("resync could not read a room", metadata: ["room": "\(id)", "error": "\(error)"])
                    continue
                }
                for connection in members(of: id) {
                    await connection.offer(room: id, seq: room.lastMessageSeq)
                    await connection.offer(room: id, change: room.lastChangeSeq)
                }
            }
            for connection in watchers { await connection.reloadRooms() }
        default:
            break
        }
    }
}
