import Foundation
import GeoGrid
import Logging
import Synchronization

/// A small number (a ``GeoTags/scope``) for each group whose members-only events
/// this instance has indexed, given the first time one is seen and kept for the
/// process's life (numbers are this instance's own, never stored or sent).
/// Past the last number every further group shares it, and that shared scope
/// is never named by a filter: those events are found by nobody's search (their
/// routes still answer members) rather than by the wrong people.
final class ScopeNumbers: Sendable {
    private struct State {
        var byGroup: [UUID: UInt32] = [:]
        var groups: [UUID] = []
    }

    private let state = Mutex(State())
    private let last: UInt32
    private let numbered = Atomic<Int>(0)

    /// How many groups have a number: grows when one is given.
    var count: Int { numbered.load(ordering: .acquiring) }

    init(last: UInt32 = GeoTags.maxScope) { self.last = last }

    /// An event's scope: 0 for an open one; its group's number for a members-only
    /// one (the shared last for one that names no group: nobody finds it).
    func scope(of restriction: EventRestriction) -> UInt32 {
        guard case .members(let group) = restriction else { return 0 }
        guard let group else { return last }
        return number(group)
    }

    /// The group's number, given now if it has none.
    func number(_ group: UUID) -> UInt32 {
        state.withLock { s in
            if let number = s.byGroup[group] { return number }
            guard s.groups.count + 1 < Int(last) else { return last }
            s.groups.append(group)
            let number = UInt32(s.groups.count)
            s.byGroup[group] = number
            numbered.store(s.groups.count, ordering: .releasing)
            return number
        }
    }

    /// The numbers of these groups that have one (the shared last one never).
    func numbers(of groups: Set<UUID>) -> [UInt32] {
        state.withLock { s in groups.compactMap { s.byGroup[$0] } }
    }

    /// The group with this number (nil for the shared last one).
    func group(of number: UInt32) -> UUID? {
        state.withLock { s in number >= 1 && Int(number) <= s.groups.count ? s.groups[Int(number) - 1] : nil }
    }
}
