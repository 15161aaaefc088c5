import Foundation

/// Every effect a committed change has on this instance, in one place: what each
/// kind of ``Change`` does to memory (applied at once) and whom it is handed to
/// (followers, in order), and how its rows are read when another instance made it.
/// The feed runs the same handlers for a change committed here and for one heard
/// on the bus, so the two can never differ.
///
/// To add an effect: a case in ``Change`` (`Model/Change.swift`), recorded by the
/// write (`changes.record(…)`), and its handler here.
extension AppServices {
    func registerChangeHandlers() {
        let clock = self.clock

        // Events: the nearby index (and its cards) follows each event row.
        changes.read(.event) { [eventStore] change in
            var rows = ChangeRows()
            if case .event(let id) = change, let event = try await eventStore.event(id) { rows.events[id] = event }
            return rows
        }
        changes.apply(.event) { [eventIndex] change, rows in
            guard case .event(let id) = change, let event = rows.events[id] else { return }
            eventIndex.apply(event, now: clock.now())
        }

        // Profiles: the people index and the cached profile.
        changes.read(.user) { [accountStore] change in
            var rows = ChangeRows()
            if case .user(let id) = change, let user = try await accountStore.user(id) { rows.profiles[id] = user }
            return rows
        }
        changes.apply(.user) { [userIndex, peopleCache, hub] change, rows in
            guard case .user(let id) = change else { return }
            peopleCache.forgetProfile(id)
            guard let user = rows.profiles[id] else { return }
            userIndex.apply(user, now: clock.now())
            // The sockets' recent messages show the name a read would.
            hub.renamed(id, to: user.name)
        }

        // Groups: the groups nearby index follows each group row.
        changes.read(.group) { [groupStore] change in
            var rows = ChangeRows()
            if case .group(let id) = change, let group = try await groupStore.group(id) { rows.groups[id] = group }
            return rows
        }
        changes.apply(.group) { [groupIndex] change, rows in
            guard case .group(let id) = change, let group = rows.groups[id] else { return }
            groupIndex.apply(group, now: clock.now())
        }

        // An ended session is dead here before the request that ended it is answered.
        changes.apply(.session) { [tokens] change, _ in
            if case .session(let id) = change { tokens.forget(tokenID: id) }
        }
        changes.apply(.attendance) { [attendanceCache] change, _ in
            if case .attendance(let user) = change { attendanceCache.invalidate([user]) }
        }
        // What a person may see follows their groups: the next request reads them again.
        changes.apply(.membership) { [membershipCache] change, _ in
            if case .membership(let user, _) = change { membershipCache.invalidate([user]) }
        }
        changes.apply(.block) { [peopleCache] change, _ in
            if case .block(let blocker, let blocked) = change { peopleCache.forgetBlocks([blocker, blocked]) }
        }

        // A message stored here goes on its room's recent messages before the room
        // is told, so its sockets are sent it without reading it back.
        changes.apply(.chat) { [hub] change, rows in
            if case .chat(let room, let seq) = change, let message = rows.message(room: room, seq: seq) { hub.remember([message]) }
        }

        // Job workers look at the queue when jobs were queued, or may have been.
        changes.apply(.jobs, .resync) { [workers] _, _ in
            for worker in workers { worker.wake() }
        }

        // Sockets: messages, changes, chats lists, typing, read markers, notifications,
        // ended sessions, memberships and blocks.
        changes.follow(.chat, .chatChange, .roomState, .typing, .read, .session, .notification, .attendance, .membership, .block, .resync) {
            [hub] change in
            await hub.handle(change)
        }

        // What may have been missed while the bus was away is read again.
        changes.follow(.resync) { [sync] _ in
            await sync.resync()
        }
    }
}
