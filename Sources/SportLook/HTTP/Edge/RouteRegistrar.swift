import Foundation
import HTTPTypes
import Hummingbird

/// Adds routes to a router group and records them in the ``RouteTable``.
struct RouteRegistrar<Context: RequestContext> {
    let group: any RouterMethods<Context>
    let prefix: String
    let table: RouteTable
    /// Checks that run before the handler of every route at or under a path
    /// (`/v1/events/:id`): who may see what a route names is asked once for all its
    /// routes, those added later included.
    var guards: [RouteGuard<Context>] = []

    /// Adds the route: `path` is the whole path (`/v1/events/:id`), as `grep` finds it,
    /// starting with the group's prefix.
    func on<Response: ResponseGenerator>(
        _ method: HTTPRequest.Method, _ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) {
        precondition(path.hasPrefix(prefix + "/"), "\(path) is not under \(prefix)/")
        table.add(method, path == "/" ? "" : path)
        let checks = guards.filter { path == $0.path || path.hasPrefix($0.path + "/") }.map(\.check)
        let routerPath = RouterPath(String(path.dropFirst(prefix.count + 1)))
        if checks.isEmpty {
            group.on(routerPath, method: method, use: handler)
        } else {
            group.on(routerPath, method: method) { (request: Request, context: Context) async throws -> Response in
                for check in checks { try await check(context) }
                return try await handler(request, context)
            }
        }
    }

    func get(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) {
        on(.get, path, use: handler)
    }
    func post(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) {
        on(.post, path, use: handler)
    }
    func put(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) {
        on(.put, path, use: handler)
    }
    func patch(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) {
        on(.patch, path, use: handler)
    }
    func delete(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) {
        on(.delete, path, use: handler)
    }
    func head(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) {
        on(.head, path, use: handler)
    }
}

/// A check before the handlers of the routes at or under `path`.
struct RouteGuard<Context: RequestContext>: Sendable {
    var path: String
    var check: @Sendable (Context) async throws -> Void
}

extension RequestContext {
    /// A path parameter that must be a UUID; anything else names nothing (404).
    func uuid(_ name: String, _ what: DomainError.Thing) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(text: text) else { throw DomainError.notFound(what) }
        return id
    }

    /// A room's message named by the path (`/v1/rooms/{id}/messages/{seq}…`): the room and the seq.
    func roomMessage() throws -> (room: UUID, seq: Int64) {
        let id = try uuid("id", .room)
        guard let text = parameters.get("seq"), text.count <= 12, let seq = Int64(text), seq >= 1 else {
            throw DomainError.notFound(.message)
        }
        return (id, seq)
    }
}
