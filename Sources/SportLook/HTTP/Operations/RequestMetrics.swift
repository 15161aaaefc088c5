import Dispatch
import HTTPTypes
import Hummingbird
import Metrics
import Synchronization

/// Every request counted, timed and, while it runs, counted as active, in the series
/// Hummingbird's `MetricsMiddleware` names (`hb_requests`, `hb_request_errors`,
/// `http_server_request_duration_seconds`, `http_server_active_requests`, by route,
/// method and status), as a step of ``EdgeMiddleware`` rather than a middleware of its
/// own: that middleware wrapped every body in a closure to time it until written, so a
/// response's head and body went out in two writes instead of one, and its own async
/// frame cost more than the counting.
///
/// A response of up to 64 KiB (a buffer, written in one go) is timed until it is
/// ready; a larger or streamed one until its body is written (or dropped unwritten).
/// A request answered before routing (a preflight, a refusal at the edge) is counted
/// under the route `Unknown`, one that matched no route under `NotFound`.
/// (`hb_request_errors` stays at 0, as it did: ``EdgeMiddleware`` turns every error
/// into its response.)
final class RequestMetrics: Sendable {
    private let methods: [Meter]
    private let state = Mutex(State())

    private struct State {
        var endpoints: [Key: Endpoint] = [:]
        var otherMethods: [HTTPRequest.Method: Meter] = [:]
    }

    private struct Key: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    private struct Endpoint: Sendable {
        let requests: Counter
        let duration: Metrics.Timer
    }

    /// The methods whose active-requests gauge is made up front, by their index.
    private static let known: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .head, .options]
    /// Bodies up to this size are timed until ready, larger ones until written.
    static let writtenAtOnce = 64 * 1_024

    init() {
        methods = Self.known.map(Self.activeRequests)
    }

    /// A request that started: its start, and its method's gauge, counted up.
    func start(_ request: Request) -> Started {
        let gauge =
            Self.known.firstIndex(of: request.method).map { methods[$0] }
            ?? state.withLock { s in
                if let gauge = s.otherMethods[request.method] { return gauge }
                let made = Self.activeRequests(request.method)
                s.otherMethods[request.method] = made
                return made
            }
        gauge.increment()
        return Started(uptime: DispatchTime.now().uptimeNanoseconds, gauge: gauge)
    }

    struct Started: Sendable {
        let uptime: UInt64
        let gauge: Meter
    }

    /// Counts the request's response, now or once its body is written.
    func finish(_ started: Started, _ response: inout Response, request: Request, context: some RequestContext) {
        let key = Key(route: context.endpointPath ?? "Unknown", method: request.method, status: response.status.code)
        if let length = response.body.contentLength, length <= Self.writtenAtOnce {
            record(key, started)
            return
        }
        let pending = Pending(metrics: self, key: key, started: started)
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { pending.record() }
            try await body.write(writer)
        }
    }

    /// A count still to be made once a body is written, made exactly once: when the
    /// write ends, or when the body is dropped unwritten (the client went away first).
    private final class Pending: Sendable {
        let metrics: RequestMetrics
        let key: Key
        let started: Started
        let done = Atomic<Bool>(false)

        init(metrics: RequestMetrics, key: Key, started: Started) {
            self.metrics = metrics
            self.key = key
            self.started = started
        }

        func record() {
            guard !done.exchange(true, ordering: .relaxed) else { return }
            metrics.record(key, started)
        }

        deinit { record() }
    }

    private func record(_ key: Key, _ started: Started) {
        let endpoint = state.withLock { s in
            if let known = s.endpoints[key] { return known }
            let made = Self.endpoint(key)
            s.endpoints[key] = made
            return made
        }
        endpoint.requests.increment()
        endpoint.duration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started.uptime))
        started.gauge.decrement()
    }

    private static func activeRequests(_ method: HTTPRequest.Method) -> Meter {
        Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
    }

    private static func endpoint(_ key: Key) -> Endpoint {
        let dimensions = [
            ("http.route", key.route), ("http.request.method", key.method.rawValue), ("http.response.status_code", String(key.status)),
        ]
        // Made, so that the series is exported (at 0) as Hummingbird's middleware made it.
        _ = Counter(
            label: "hb.request.errors",
            dimensions: [("http.route", key.route), ("http.request.method", key.method.rawValue), ("error.type", String(key.status))])
        return Endpoint(
            requests: Counter(label: "hb.requests", dimensions: dimensions),
            duration: Metrics.Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
        )
    }
}
