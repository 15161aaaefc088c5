import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// `/health`, `/ready`, `/metrics` and `/openapi.yaml`.
///
/// `/metrics` tells how the service is used: on the main port it answers only
/// with `Authorization: Bearer <METRICS_TOKEN>` (404 otherwise, as if absent);
/// `METRICS_PORT` serves it on a listener of its own (loopback by default).
struct OperationsController {
    let readiness: Readiness
    let openAPI: ByteBuffer
    /// The token that opens `/metrics` here; `nil`: not served on this port.
    let metricsToken: String?

    func addRoutes(to routes: RouteRegistrar<AppRequestContext>) {
        routes.get("/health", use: health)
        routes.get("/ready", use: ready)
        routes.get("/metrics", use: metrics)
        routes.get("/openapi.yaml", use: openapi)
    }

    /// The Prometheus text.
    static func metrics() -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
            body: .init(byteBuffer: ByteBuffer(bytes: Observability.render())))
    }

    /// The router of the `METRICS_PORT` listener: `/metrics` and nothing else.
    static func metricsRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("metrics") { _, _ in metrics() }
        return router
    }
}

extension [UInt8] {
    /// Equality in time that does not depend on where the arrays differ.
    func constantTimeEquals(_ other: [UInt8]) -> Bool {
        guard count == other.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(self, other) { difference |= a ^ b }
        return difference == 0
    }
}

/// What `/ready` checks: the database answers, and the in-memory indexes are warm.
/// Read replicas are shown with their state and lag, and never make the instance
/// unready: without them, reads go to the primary.
///
/// The database is probed at most once a second, whatever the number of callers
/// (a load balancer's checks, or a flood of them): every answer comes from a
/// probe at most ``maxAge`` old, and concurrent callers share one probe.
public final class Readiness: Sendable {
    private let database: Database
    private let conditions: [@Sendable () -> (String, Bool)]
    private struct Probe {
        var last: (at: ContinuousClock.Instant, reachable: Bool)?
        var running: Task<Bool, Never>?
    }
    private let probe = Mutex(Probe())
    /// The oldest probe an answer may use.
    static let maxAge: Duration = .seconds(1)

    init(database: Database, conditions: [@Sendable () -> (String, Bool)]) {
        self.database = database
        self.conditions = conditions
    }

    /// Runs the checks.
    public func check() async -> (ready: Bool, checks: [(String, Bool)]) {
        var checks = [("database", await databaseReachable())]
        checks += conditions.map { $0() }
        return (checks.allSatisfy(\.1), checks)
    }

    /// Whether no primary takes writes now (reads go on from replicas).
    var readOnly: Bool { database.isReadOnly }

    /// Each read replica's state at the last probe.
    func replicas() -> [ReplicaSet.Report] { database.replicaReport() }

    private func databaseReachable() async -> Bool {
        let task = probe.withLock { p -> Task<Bool, Never>? in
            if let last = p.last, ContinuousClock.now - last.at < Self.maxAge { return nil }
            if let running = p.running { return running }
            let task = Task { [self] in
                let started = ContinuousClock.now
                let reachable = await database.isReachable()
                // Shown as the last check found them; never waited for.
                database.replicas?.startCheck()
                probe.withLock { $0 = Probe(last: (started, reachable), running: nil) }
                return reachable
            }
            p.running = task
            return task
        }
        guard let task else { return probe.withLock { $0.last?.reachable ?? false } }
        return await task.value
    }
}

// MARK: Handlers

extension OperationsController {
    /// A constant answer: the server's ceiling in benchmarks.
    static let healthy = ByteBuffer(string: #"{"status":"ok"}"#)

    /// `GET /health`
    @Sendable func health(_: Request, _: AppRequestContext) async throws -> some ResponseGenerator {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: Self.healthy))
    }

    /// `GET /ready`
    @Sendable func ready(_: Request, _: AppRequestContext) async throws -> some ResponseGenerator {
        let report = await readiness.check()
        var json = JSONWriter()
        json.objectStart()
        json.field("status", report.ready ? "ready" : "not_ready")
        json.key("checks")
        json.objectStart()
        for (name, passed) in report.checks { json.field(name, passed) }
        json.objectEnd()
        if readiness.readOnly { json.field("read_only", true) }
        let replicas = readiness.replicas()
        if !replicas.isEmpty {
            json.key("replicas")
            json.arrayStart()
            for replica in replicas {
                json.objectStart()
                json.field("name", replica.name)
                json.field("state", replica.state)
                if let lag = replica.lag { json.field("lag_seconds", (lag * 1000).rounded() / 1000) }
                json.objectEnd()
            }
            json.arrayEnd()
        }
        json.objectEnd()
        return JSONResponse(status: report.ready ? .ok : .serviceUnavailable, bytes: json.bytes)
    }

    /// `GET /metrics`
    @Sendable func metrics(_ request: Request, _: AppRequestContext) async throws -> some ResponseGenerator {
        guard let metricsToken, let token = BearerToken.parse(request.headers),
            token.utf8.count == metricsToken.utf8.count, Array(token.utf8).constantTimeEquals(Array(metricsToken.utf8))
        else { throw APIError(.notFound, code: "not_found", message: Sentence("No route for GET /metrics.")) }
        return Self.metrics()
    }

    /// `GET /openapi.yaml`
    @Sendable func openapi(_: Request, _: AppRequestContext) async throws -> some ResponseGenerator {
        Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: openAPI))
    }
}
