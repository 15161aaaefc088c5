import Foundation
import Logging
import Synchronization

/// The chats list, live, and what a change of membership or blocks asks of an open socket.
extension ChatConnection {
    // MARK: The chats list, live

    /// From now on, `room_updated` frames keep the client's chats list current.
    func watchRooms() async {
        guard roomsList.watch() else { return }
        await reloadRooms()
        send(ephemeral: Frames.simple("watching_rooms", room: nil))
    }

    /// Something happened in a room: if the user is in it, its entry is sent again
    /// shortly (several events in a short while make one frame). `reload` first
    /// reads which rooms the user is in (a conversation started or answered).
    func roomActivity(_ room: UUID, reload: Bool = false) async {
        guard roomsList.watching else { return }
        if reload { await reloadRooms() }
        guard roomsList.activity(room) else { return }
        Task {
            try? await Task.sleep(for: Self.roomUpdateDelay)
            await self.flushRooms()
        }
    }

    private func flushRooms() async {
        let rooms = roomsList.flush()
        guard !rooms.isEmpty, !queue.isClosed else { return }
        do {
            let now = Date()
            for listing in try await hub.rooms.listings(Array(rooms), for: userID) {
                send(ephemeral: Frames.roomUpdated(listing, viewer: userID, links: hub.links, now: now))
            }
        } catch {
            logger.warning("could not read rooms for a live update", metadata: ["error": "\(error)"])
        }
    }

    /// Reads which rooms the user is in; rooms joined since are sent, rooms left are
    /// announced as `room_removed`.
    func reloadRooms() async {
        guard roomsList.watching else { return }
        do {
            let (left, joined) = roomsList.roomsRead(try await hub.rooms.roomIDs(of: userID))
            hub.watch(self, rooms: roomsList.rooms)
            for room in left {
                send(ephemeral: Frames.simple("room_removed", room: RoomAddress(id: room, eventID: nil)))
            }
            for room in joined { await roomActivity(room) }
        } catch {
            logger.warning("could not read the user's rooms", metadata: ["error": "\(error)"])
        }
    }

    /// After an attendance change: subscriptions to rooms the user left end. A
    /// check that fails ends the subscription too (the client subscribes again):
    /// a failed check never leaves access in place.
    func recheckMembership() async {
        // Those being set up read their membership again before they are set.
        for room in protocolState.attendanceChanged() {
            do {
                // Out of an event's people going, or of a group (its room, and its members-only games' rooms).
                let found = try await chat.membership(room, userID)
                if found?.member != true { await unsubscribe(room, reason: found?.room.kind == .group ? "not_a_member" : "not_attending") }
            } catch {
                logger.warning("membership check failed; ending the subscription", metadata: ["room": "\(room)", "error": "\(error)"])
                await unsubscribe(room, reason: "unavailable")
            }
        }
    }

    func reloadBlocks() async {
        do {
            let updated = try await chat.blockedBy(userID)
            hidden.withLock { $0 = updated }
            // Polls' voters as seen changed: each poll goes whole again.
            forgetPollsSent()
        } catch {
            logger.warning("could not reload blocks", metadata: ["error": "\(error)"])
        }
    }
}
