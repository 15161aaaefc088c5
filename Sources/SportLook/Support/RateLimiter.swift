import Foundation
import Synchronization

/// Counts actions per key in fixed windows and says when a key is over its limit.
///
/// In memory, per instance: behind a load balancer each instance enforces the
/// limit on what it sees.
final class RateLimiter: Sendable {
    private struct Window {
        var start: Date
        var count: Int
    }

    private let limit: Int
    private let window: TimeInterval
    private let clock: any AppClock
    private let windows = Mutex<[String: Window]>([:])

    /// - Parameters:
    ///   - limit: Actions allowed per window.
    ///   - window: Window length in seconds.
    ///   - clock: The time source.
    init(limit: Int, per window: TimeInterval, clock: any AppClock) {
        self.limit = limit
        self.window = window
        self.clock = clock
    }

    /// Counts one action; returns `nil` when allowed, or the seconds to wait.
    func acquire(_ key: String) -> Int? {
        if case .wait(let seconds) = take(key) { return seconds }
        return nil
    }

    /// An action counted in its key's window, which ``giveBack(_:)`` uncounts.
    struct Place: Sendable {
        fileprivate let key: String
        fileprivate let window: Date
    }

    /// Counts one action that may yet not happen: its place, or `nil` when the key is
    /// over its limit (nothing counted).
    func reserve(_ key: String) -> Place? {
        if case .counted(let place) = take(key) { return place }
        return nil
    }

    /// Uncounts an action that did not happen, while its window lasts.
    func giveBack(_ place: Place) {
        windows.withLock { windows in
            guard var current = windows[place.key], current.start == place.window, current.count > 0 else { return }
            current.count -= 1
            windows[place.key] = current
        }
    }

    /// One action counted (its place, which ``giveBack(_:)`` uncounts), or the seconds
    /// to wait before the key may act again (nothing counted).
    enum Taken {
        case counted(Place)
        case wait(Int)
    }

    /// Counts one action that may yet not happen, as ``reserve(_:)``, telling the wait when over the limit.
    func take(_ key: String) -> Taken {
        let now = clock.now()
        return windows.withLock { windows in
            if windows.count > 100_000 { windows = windows.filter { now.timeIntervalSince($0.value.start) < window } }
            var current = windows[key] ?? Window(start: now, count: 0)
            if now.timeIntervalSince(current.start) >= window { current = Window(start: now, count: 0) }
            guard current.count < limit else {
                return .wait(max(1, Int((current.start.addingTimeInterval(window).timeIntervalSince(now)).rounded(.up))))
            }
            current.count += 1
            windows[key] = current
            return .counted(Place(key: key, window: current.start))
        }
    }
}
