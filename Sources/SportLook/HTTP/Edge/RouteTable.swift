import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Every route the router knows, to tell 405 from 404 and to check the OpenAPI
/// document against the router.
public final class RouteTable: Sendable {
    /// A registered route.
    public struct Route: Sendable, Hashable {
        /// The method.
        public var method: HTTPRequest.Method
        /// The path, with `:name` for parameters.
        public var path: String
    }

    private let storage = Mutex<[Route]>([])

    /// Every route.
    public var all: [Route] { storage.withLock { $0 } }

    func add(_ method: HTTPRequest.Method, _ path: String) { storage.withLock { $0.append(Route(method: method, path: path)) } }

    /// The methods of the resource at `path`: of the most specific patterns that
    /// match it (fixed segments win over parameters, as in the router).
    func methods(matching path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let matches = all.compactMap { route -> (Route, Int)? in
            let pattern = route.path.split(separator: "/", omittingEmptySubsequences: true)
            guard pattern.count == segments.count, zip(pattern, segments).allSatisfy({ $0.hasPrefix(":") || $0 == $1 }) else { return nil }
            return (route, pattern.filter { !$0.hasPrefix(":") }.count)
        }
        let best = matches.map(\.1).max() ?? 0
        return Array(Set(matches.filter { $0.1 == best }.map(\.0.method)))
    }
}
