import Dispatch
import HTTPTypes
import Hummingbird
import Metrics
import Synchronization

/// Every request counted, timed and, while it runs, counted as active, in the series
/// Hummingbird's `MetricsMiddleware` names (`hb_requests`,
/// `http_server_request_duration_seconds`, `http_server_active_requests`, by route,
/// method and status), as a step of ``EdgeMiddleware`` rather than a middleware of its
/// own: the extra async frame and the response body wrapped in a closure on every
/// request cost more than the counting.
///
/// A request is timed until its response is ready when the body's length is known (a
/// buffer, written in one go), and until its body is written otherwise (a stream).
/// A request that ends in no route is counted under the route `Unknown`.
final class RequestMetrics: Sendable {
    private let methods: [Meter]
    private let endpoints = Mutex<[Key: Endpoint]>([:])

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

    init() {
        methods = Self.known.map(Self.activeRequests)
    }

    /// A request that started: its start, and its method's gauge, counted up.
    func start(_ request: Request) -> Started {
        let gauge = Self.known.firstIndex(of: request.method).map { methods[$0] } ?? Self.activeRequests(request.method)
        gauge.increment()
        return Started(uptime: DispatchTime.now().uptimeNanoseconds, gauge: gauge)
    }

    struct Started: Sendable {
        let uptime: UInt64
        let gauge: Meter
    }

    /// Counts the request's response, when it is ready or once its body is written.
    func finish(_ started: Started, _ response: inout Response, request: Request, context: some RequestContext) {
        let key = Key(route: context.endpointPath ?? "Unknown", method: request.method, status: response.status.code)
        if response.body.contentLength != nil {
            record(key, started)
        } else {
            let body = response.body
            response.body = ResponseBody { writer in
                defer { self.record(key, started) }
                try await body.write(writer)
            }
        }
    }

    private func record(_ key: Key, _ started: Started) {
        let endpoint = endpoints.withLock { endpoints in
            if let known = endpoints[key] { return known }
            let made = Self.endpoint(key)
            endpoints[key] = made
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
        let dimensions = [("http.route", key.route), ("http.request.method", key.method.rawValue), ("http.response.status_code", String(key.status))]
        return Endpoint(
            requests: Counter(label: "hb.requests", dimensions: dimensions),
            duration: Metrics.Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
        )
    }
}
