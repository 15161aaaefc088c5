import Foundation
import GeoGrid
import Synchronization

/// Per user, what discovery needs on every request: their favourite sports and
/// who is blocked between them and others. Dropped when they change.
final class PeopleCache: Sendable {
    private struct State {
        var masks: [UUID: UInt64] = [:]
        var blocked: [UUID: Set<UUID>] = [:]
    }

    private let state = Mutex(State())

    func mask(_ user: UUID, load: () async throws -> UInt64) async throws -> UInt64 {
        if let mask = state.withLock({ $0.masks[user] }) { return mask }
        let mask = try await load()
        state.withLock { s in
            if s.masks.count > 200_000 { s.masks.removeAll() }
            s.masks[user] = mask
        }
        return mask
    }

    func blocked(_ user: UUID, load: () async throws -> Set<UUID>) async throws -> Set<UUID> {
        if let set = state.withLock({ $0.blocked[user] }) { return set }
        let set = try await load()
        state.withLock { s in
            if s.blocked.count > 200_000 { s.blocked.removeAll() }
            s.blocked[user] = set
        }
        return set
    }

    func forgetProfile(_ user: UUID) { _ = state.withLock { $0.masks.removeValue(forKey: user) } }

    func forgetAll() { state.withLock { $0 = State() } }

    func forgetBlocks(_ users: [UUID]) {
        state.withLock { s in for user in users { s.blocked[user] = nil } }
    }
}

/// Discovering people nearby, public profiles, blocking and reports.
struct PeopleService: Sendable {
    let database: Database
    let index: UserIndex
    let cache: PeopleCache
    let accounts: AccountStore
    let events: EventStore
    let safety: SafetyStore
    let chat: ChatStore
    let media: MediaStore
    let blocks: Blocks
    /// A members-only game is not there to report for anyone outside its group.
    let access: EventAccess
    let sports: SportCatalog
    let write: Writer
    let clock: any AppClock

    /// Keyset of the discovery order: more shared sports first, then nearer, then id
    /// (the grid's order for a search preferring the caller's sports).
    struct Cursor: CursorCodable, Sendable {
        var position: GeoCursor
        var query: UInt32

        init(position: GeoCursor, query: UInt32) {
            self.position = position
            self.query = query
        }

        init?(cursor: String) {
            guard let f = OpaqueCursor.decode(cursor, count: 4), let shared = Int(f[0]), (0...64).contains(shared),
                let bits = UInt64(f[1], radix: 16), let id = UUID(text: f[2]), let query = UInt32(f[3], radix: 16)
            else { return nil }
            let distance = Double(bitPattern: bits)
            guard distance.isFinite, distance >= 0 else { return nil }
            self.position = GeoCursor(distance: distance, key: id.geoKey, shared: shared)
            self.query = query
        }

        var cursor: String {
            OpaqueCursor.encode([
                String(position.shared), String(position.distance.bitPattern, radix: 16), UUID(geoKey: position.key).lowercased,
                String(query, radix: 16),
            ])
        }
    }

    func callerMask(_ user: UUID) async throws -> UInt64 {
        try await cache.mask(user) { [accounts, sports] in
            sports.mask(of: try await accounts.database.read { sql in try await accounts.sports(of: user, on: sql) })
        }
    }

    func blocked(_ user: UUID) async throws -> Set<UUID> {
        try await blocks.eitherWay(user)
    }

    /// A page of people: each one's card (the bytes the index holds, at its range of
    /// `cards`), distance and the sports they share with the caller.
    struct NearbyPage: Sendable {
        struct Item: Sendable {
            var card: Range<Int>
            var distance: Double
            /// The sports they share with the caller, as catalogue bits (``SportCatalog/writeSlugs(in:to:)``).
            var sharedSports: UInt64
            /// Their level in the sport asked for, when the search asked for levels.
            var level: Level?
        }
        /// The items' cards, one after another (see ``EventSearch/NearbyPage``).
        var cards: [UInt8]
        var items: [Item]
        var nextCursor: String?
    }

    /// People near a point: discoverable, not the caller, not blocked either way.
    /// With `levels`, only those whose level in `sport` is in that range (from the
    /// sport's level grid, the range a filter of its walk); `sport` is then required.
    func nearby(
        for caller: UUID, center: GeoPoint, radiusKm: Double, sport: String?, levels: ClosedRange<Level>? = nil, limit: Int, cursor: Cursor?
    ) async throws -> NearbyPage {
        guard index.isWarm else { throw DomainError.warmingUp }
        var fingerprint = QueryFingerprint()
        fingerprint.add(Int64(center.latitudeE7))
        fingerprint.add(Int64(center.longitudeE7))
        fingerprint.add(double: radiusKm)
        fingerprint.add(text: sport)
        fingerprint.add(levels.map { Int64($0.lowerBound.halves) << 8 | Int64($0.upperBound.halves) } ?? -1)
        let query = fingerprint.value
        if let cursor, cursor.query != query { throw DomainError.invalidParameter("cursor", Sentence("belongs to another query")) }
        let grid: GeoGrid?
        let filter: GeoFilter
        if let levels {
            guard let bit = sport.flatMap({ sports[$0] })?.bit else {
                throw DomainError.invalidParameter("sport", Sentence("is required with a level"))
            }
            grid = index.levelGrid(sportBit: bit)
            filter = GeoFilter(traitGroups: SIMD4(GameTraits.levels(levels), 0, 0, 0))
        } else {
            grid = index.grid
            filter = GeoFilter(anyOf: sport.map { sports.mask(of: [$0]) })
        }
        let mine = try await callerMask(caller)
        let hidden = try await blocked(caller)
        let me = caller.geoKey
        // The grid ranks by sports shared, then distance, then key, and orders only the
        // best it keeps (walking the whole disc). The caller and people blocked either way
        // are dropped after: it is asked for room for them too, so that one walk fills the
        // page; only when more of them than that came first does it walk again after
        // the last hit (a newer snapshot, where someone moved could come again: skipped).
        var after = cursor?.position
        var found: [GeoHit] = []
        var walks = 0
        while let grid, found.count <= limit {
            let need = limit + 1 - found.count + 1 + min(hidden.count, 1_000)
            let hits = grid.search(within: radiusKm * 1_000, of: center, filter: filter, preferring: mine, after: after, limit: need)
            for hit in hits {
                after = hit.cursor(preferring: mine)
                if hit.entry.key == me || (!hidden.isEmpty && hidden.contains(UUID(geoKey: hit.entry.key))) { continue }
                if walks > 0 && found.contains(where: { $0.entry.key == hit.entry.key }) { continue }
                found.append(hit)
            }
            walks += 1
            if hits.count < need { break }
        }
        let page = found.prefix(limit)
        let cards = index.cards(page.map { UUID(geoKey: $0.entry.key) })
        let items = zip(page, cards.ranges).compactMap { hit, range in
            range.map {
                NearbyPage.Item(
                    card: $0, distance: hit.distance, sharedSports: hit.entry.tags.mask & mine,
                    level: levels == nil ? nil : Level(halves: hit.entry.tags.traits.trailingZeroBitCount)
                )
            }
        }
        let next = found.count > limit ? page.last.map { Cursor(position: $0.cursor(preferring: mine), query: query).cursor } : nil
        return NearbyPage(cards: cards.bytes, items: items, nextCursor: next)
    }

    /// Someone's public profile and the upcoming events the caller may see.
    struct PublicProfile: Sendable {
        var user: User
        var events: [Event]
    }

    /// Someone's public profile with their upcoming events; hidden (404) across a
    /// block and for a deleted account.
    ///
    /// Whereabouts stay private: the events listed are those the user organises
    /// (public anyway), and those they go to only when the caller attends them too.
    func profile(of id: UUID, for caller: UUID) async throws -> PublicProfile {
        if id != caller, try await blocked(caller).contains(id) { throw DomainError.notFound(.user) }
        let now = clock.now()
        // The profile may come from a replica; the block above is decided on the primary.
        return try await Database.lagTolerant {
            try await profileRead(of: id, for: caller, now: now)
        }
    }

    private func profileRead(of id: UUID, for caller: UUID, now: Date) async throws -> PublicProfile {
        try await database.read { [accounts, events] sql in
            guard let user = try await accounts.user(id, on: sql), !user.isDeleted else { throw DomainError.notFound(.user) }
            let upcoming = try await events.upcoming(of: id, sharedWith: caller, now: now, limit: 20, on: sql)
            return PublicProfile(user: user, events: upcoming)
        }
    }

    func block(_ target: UUID, by user: UUID) async throws {
        guard target != user else { throw DomainError.validation(["id": Sentence("you cannot block yourself")]) }
        let now = clock.now()
        try await write { [safety] sql, changes in
            guard try await safety.block(target, by: user, at: now, on: sql) else { throw DomainError.notFound(.user) }
            changes.record(.block(blocker: user, blocked: target))
        }
    }

    func unblock(_ target: UUID, by user: UUID) async throws {
        let now = clock.now()
        try await write { [safety] sql, changes in
            guard try await safety.unblock(target, by: user, at: now, on: sql) else { throw DomainError.notFound(.user) }
            changes.record(.block(blocker: user, blocked: target))
        }
    }

    static let reportReasons = ["spam", "harassment", "inappropriate", "impersonation", "safety", "other"]
    /// What can be reported: a person, a game, a chat message, a group, a photo.
    static let reportTargets = ["user", "event", "message", "group", "photo"]

    struct ReportInput: Decodable, Sendable {
        var targetType: String?
        var targetId: String?
        var reason: String?
        var details: String?
    }

    /// Files a report; the same reporter on the same target gets the first report back.
    func report(_ input: ReportInput, by user: UUID) async throws -> (report: SafetyReport, created: Bool) {
        var v = Validator()
        let type = input.targetType
        if type == nil {
            v.fail("target_type", Sentence("is required"))
        } else if !Self.reportTargets.contains(type!) {
            v.fail("target_type", Sentence("must be one of \(Self.reportTargets.joined(separator: ", "))"))
        }
        let target = input.targetId.flatMap(UUID.init(text:))
        if target == nil { v.fail("target_id", input.targetId == nil ? Sentence("is required") : Sentence("must be an id")) }
        if input.reason == nil {
            v.fail("reason", Sentence("is required"))
        } else if !Self.reportReasons.contains(input.reason!) {
            v.fail("reason", Sentence("must be one of \(Self.reportReasons.joined(separator: ", "))"))
        }
        let details = input.details.flatMap { v.text($0, "details", 0...2_000, multiline: true, required: false) }
        try v.throwIfInvalid()
        guard let type, let target, let reason = input.reason else { throw DomainError.validation(v.fields) }
        let now = clock.now()
        // A photo is named by its upload's id or by whoever shows it; the report is on the upload.
        let reported = type == "photo" ? try await photo(target, seenBy: user) : target
        let report = SafetyStore.NewReport(
            targetType: type, targetID: reported, reason: reason, details: details?.isEmpty == false ? details : nil)
        // An event the reporter may not see is no more there than an unknown one (the same 404).
        if type == "event" { try await access.require(target, for: user) }
        return try await database.transaction { [safety, chat] sql in
            guard try await safety.exists(type, reported, on: sql) else {
                throw DomainError.notFound(DomainError.Thing(rawValue: type) ?? .user)
            }
            // Only a message the reporter could read: one of a room they are in.
            if type == "message" {
                guard let room = try await chat.roomOfMessage(target, on: sql), try await chat.isMember(room: room, user: user, on: sql)
                else {
                    throw DomainError.notFound(.message)
                }
            }
            if let existing = try await safety.report(by: user, on: type, reported, on: sql) { return (existing, false) }
            // One reporter's reports are counted one at a time (PostgreSQL; SQLite's writer is already alone).
            try await safety.lockReporter(user, on: sql)
            let recent = try await safety.reportTimes(by: user, since: now.addingTimeInterval(-Self.reportWindow), on: sql)
            if recent.count >= Self.reportsPerWindow, let oldest = recent.first {
                throw DomainError.tooManyRequests(
                    retryAfter: max(1, Int(oldest.addingTimeInterval(Self.reportWindow).timeIntervalSince(now).rounded(.up))),
                    code: "too_many_reports",
                    message: Sentence("You have sent \(Self.reportsPerWindow) reports in the last hour; try again later."))
            }
            if let filed = try await safety.insert(report, by: user, at: now, on: sql) { return (filed, true) }
            // The same report, filed meanwhile by the same reporter on another instance.
            guard let existing = try await safety.report(by: user, on: type, reported, on: sql) else {
                throw DomainError.notFound(.report)
            }
            return (existing, false)
        }
    }

    /// The upload a photo report is about — `id` is the upload's (a chat image's
    /// `attachment.id`) or that of the person, event or group it shows on — when the
    /// reporter can see it there: a chat image in a room of theirs, a cover of an event
    /// they may see; 404 otherwise, as for a photo that does not exist.
    private func photo(_ id: UUID, seenBy user: UUID) async throws -> UUID {
        guard let (upload, place) = try await database.read({ [media] sql in try await media.shown(id, on: sql) }) else {
            throw DomainError.notFound(.photo)
        }
        switch place {
        case .message(let room, _):
            let member = try await database.read { [chat] sql in
                guard let room = try await chat.room(room, on: sql) else { return false }
                return try await chat.isMember(room: room, user: user, on: sql)
            }
            guard member else { throw DomainError.notFound(.photo) }
        case .event(let event):
            do { try await access.require(event, for: user) } catch let error as DomainError where error.kind == .notFound {
                throw DomainError.notFound(.photo)
            }
        case .profile(let person):
            // Across a block a profile is not there, nor its photo.
            if person != user, try await blocked(user).contains(person) { throw DomainError.notFound(.photo) }
        case .group:
            break
        }
        return upload
    }

    /// Reports a person may file in ``reportWindow``.
    static let reportsPerWindow = 20
    static let reportWindow: TimeInterval = 3_600
}
