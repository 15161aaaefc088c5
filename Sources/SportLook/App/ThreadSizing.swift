import Foundation
import NIOCore

/// Sizes the event-loop group to the CPUs this process may run on.
///
/// SwiftNIO counts the machine's cores (and a container's cpuset or quota), but not a
/// CPU affinity set with `taskset` or `sched_setaffinity`: a server pinned to one CPU of
/// two would run two event loops on it, taking turns with each other at every wake-up.
/// Call before anything uses the shared group. Returns the loop count it chose, or nil
/// when the affinity allows every core NIO counts.
@discardableResult
public func sizeEventLoopsToAffinity() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }),
        let allowed = cpuCount(list: line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)),
        allowed > 0, allowed < System.coreCount
    else { return nil }
    NIOSingletons.groupLoopCountSuggestion = allowed
    NIOSingletons.blockingPoolThreadCountSuggestion = allowed
    return allowed
}

/// The number of CPUs in a Linux CPU list such as `0-3,8,10-11`.
func cpuCount(list: String) -> Int? {
    var count = 0
    for part in list.split(separator: ",") {
        let bounds = part.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        switch bounds.count {
        case 1:
            guard bounds[0] != nil else { return nil }
            count += 1
        case 2:
            guard let low = bounds[0], let high = bounds[1], high >= low else { return nil }
            count += high - low + 1
        default: return nil
        }
    }
    return count
}
