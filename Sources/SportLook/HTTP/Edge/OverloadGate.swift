import Foundation
import Hummingbird
import ServiceLifecycle
import Synchronization

/// How far behind this process's tasks run: a probe asks to wake every 10 ms and
/// notes how late it wakes. Past the CPU's capacity every request's task waits
/// that long before it starts, so once the probe has woken later than the bound
/// for ``standing`` (a standing queue, not one busy moment), new requests are
/// refused at once (``OverloadGate``) until it wakes on time again.
final class SchedulerLag: Service, Sendable {
    /// Lateness beyond which the process is behind, in nanoseconds (0: never).
    private let boundNanos: Atomic<Int64>
    /// How long lateness must last, with no probe on time, before requests are refused.
    static let standing = Duration.milliseconds(100)
    static let interval = Duration.milliseconds(10)
    /// Since when every probe was late (uptime nanoseconds; 0: the last was on time).
    private let lateSince = Atomic<UInt64>(0)
    private let behind = Atomic<Bool>(false)

    /// - Parameter bound: Lateness beyond which the process is behind (0: never, and no probe runs).
    init(bound: Duration) { boundNanos = Atomic(Self.nanoseconds(bound)) }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    var bound: Duration { .nanoseconds(boundNanos.load(ordering: .relaxed)) }

    /// Sets the bound from now on, the probe left as it was (a test gives the findings itself).
    func limitLag(to bound: Duration) { boundNanos.store(Self.nanoseconds(bound), ordering: .relaxed) }

    /// Whether new requests should be refused now.
    var isBehind: Bool { behind.load(ordering: .relaxed) }

    /// Notes a probe that woke `lateness` late at `now` (uptime nanoseconds).
    func record(lateness: Duration, at now: UInt64) {
        guard bound > .zero else { return }
        guard lateness > bound else {
            lateSince.store(0, ordering: .relaxed)
            behind.store(false, ordering: .relaxed)
            return
        }
        let since = lateSince.load(ordering: .relaxed)
        if since == 0 {
            lateSince.store(now, ordering: .relaxed)
        } else if Duration.nanoseconds(Int64(now &- since)) >= Self.standing {
            behind.store(true, ordering: .relaxed)
        }
    }

    func run() async throws {
        guard bound > .zero else {
            try? await gracefulShutdown()
            return
        }
        try? await cancelWhenGracefulShutdown { [self] in
            let clock = ContinuousClock()
            while !Task.isCancelled {
                let due = clock.now + Self.interval
                try await Task.sleep(until: due, clock: clock)
                record(lateness: clock.now - due, at: DispatchTime.now().uptimeNanoseconds)
            }
        }
    }
}

/// Past the CPU's capacity (``SchedulerLag``), an API request (`/v1/…`) is answered
/// at once with 503 `overloaded` and `Retry-After: 1` instead of waiting in a queue
/// that only grows: what is accepted stays quick, and a client knows to try again.
/// Socket upgrades (the chat refuses its own frames), the operational routes, the
/// web client's files and media are let through. (A step of ``EdgeMiddleware``.)
struct OverloadGate {
    let lag: SchedulerLag

    func check(_ request: Request) throws {
        guard lag.isBehind else { return }
        let path = request.uri.path
        if path.hasPrefix("/v1/") && path != "/v1/ws" { throw DomainError.overloaded }
    }
}
