import Foundation
import HTTPTypes
import Hummingbird

/// Adds routes to a router group and records them in the ``RouteTable``.
struct RouteRegistrar<Context: RequestContext> {
    let group: any RouterMethods<Context>
    let prefix: String
    let table: RouteTable

    /// Adds the route: `path` is the whole path (`/v1/events/:id`), as `grep` finds it,
    /// starting with the group's prefix.
    func on(_ method: HTTPRequest.Method, _ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) {
        precondition(path.hasPrefix(prefix + "/"), "\(path) is not under \(prefix)/")
        table.add(method, path == "/" ? "" : path)
        group.on(RouterPath(String(path.dropFirst(prefix.count + 1))), method: method, use: handler)
    }

    func get(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) { on(.get, path, use: handler) }
    func post(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) { on(.post, path, use: handler) }
    func put(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) { on(.put, path, use: handler) }
    func patch(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) { on(.patch, path, use: handler) }
    func delete(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) { on(.delete, path, use: handler) }
    func head(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) { on(.head, path, use: handler) }
}

extension RequestContext {
    /// A path parameter that must be a UUID; anything else names nothing (404).
    func uuid(_ name: String, _ what: String) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else { throw DomainError.notFound(what) }
        return id
    }
}
