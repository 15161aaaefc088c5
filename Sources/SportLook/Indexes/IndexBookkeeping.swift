import Foundation

/// Versions of entries an index took out, so that an update older than the
/// removal cannot bring them back. A mark lasts `lifetime` (long past any
/// reordering the bus or a re-read can bring). With a `capacity`, marks past it
/// go oldest first (by halving the age kept, never by sorting); without one, only
/// by age. Shared by the event and people indexes.
struct Tombstones {
    private var marks: [UUID: (version: Int64, at: Date)] = [:]
    let lifetime: TimeInterval
    let capacity: Int?

    init(lifetime: TimeInterval = 600, capacity: Int? = nil) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// Whether `id` was taken out at `version` or later.
    func hides(_ id: UUID, version: Int64) -> Bool {
        guard let mark = marks[id] else { return false }
        return mark.version >= version
    }

    mutating func bury(_ id: UUID, version: Int64, at now: Date) {
        marks[id] = (version, now)
        guard let capacity, marks.count > capacity else { return }
        var kept = lifetime
        while marks.count > capacity, kept >= 1 {
            marks = marks.filter { now.timeIntervalSince($0.value.at) < kept }
            kept /= 2
        }
        // All younger than a second: keep this one mark rather than none.
        if marks.count > capacity { marks = [id: (version, now)] }
    }

    mutating func lift(_ id: UUID) { marks[id] = nil }

    /// Forgets marks older than `lifetime`.
    mutating func expire(now: Date) {
        marks = marks.filter { now.timeIntervalSince($0.value.at) < lifetime }
    }
}

/// Updates that arrive while an index warms, applied once the warm data is in
/// (they may be newer than what the warm-up read).
struct WarmBacklog<Update> {
    private var held: [Update]? = []

    /// Whether the index is still warming.
    var isWarming: Bool { held != nil }

    /// Keeps `update` for later if the index is warming; `false` when it is warm.
    mutating func hold(_ update: Update) -> Bool {
        guard held != nil else { return false }
        held?.append(update)
        return true
    }

    /// Ends the warm-up: the updates held meanwhile, to apply now.
    mutating func finish() -> [Update] {
        defer { held = nil }
        return held ?? []
    }
}
