import Foundation
import Hummingbird
import NIOCore

/// `/health`, `/ready`, `/metrics` and `/openapi.yaml`.
struct OperationsController {
    let readiness: Readiness
    let openAPI: ByteBuffer

    func addRoutes(to routes: RouteRegistrar<AppRequestContext>) {
        // A constant answer: the server's ceiling in benchmarks.
        let ok = ByteBuffer(string: #"{"status":"ok"}"#)
        routes.get("health") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ok))
        }
        routes.get("ready") { _, _ in
            let report = await readiness.check()
            var json = JSONWriter()
            json.objectStart()
            json.field("status", report.ready ? "ready" : "not_ready")
            json.key("checks")
            json.objectStart()
            for (name, passed) in report.checks { json.field(name, passed) }
            json.objectEnd()
            json.objectEnd()
            return JSONResponse(status: report.ready ? .ok : .serviceUnavailable, bytes: json.bytes)
        }
        routes.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(bytes: Observability.render())))
        }
        routes.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: openAPI))
        }
    }
}

/// What `/ready` checks: the database answers, and the in-memory indexes are warm.
public final class Readiness: Sendable {
    private let database: Database
    private let conditions: [@Sendable () -> (String, Bool)]

    init(database: Database, conditions: [@Sendable () -> (String, Bool)]) {
        self.database = database
        self.conditions = conditions
    }

    /// Runs the checks.
    public func check() async -> (ready: Bool, checks: [(String, Bool)]) {
        var checks = [("database", await database.isReachable())]
        checks += conditions.map { $0() }
        return (checks.allSatisfy(\.1), checks)
    }
}
