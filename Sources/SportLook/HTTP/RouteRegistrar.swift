import Foundation
import HTTPTypes
import Hummingbird

/// Adds routes to a router group and records them in the ``RouteTable``.
struct RouteRegistrar<Context: RequestContext> {
    let group: any RouterMethods<Context>
    let prefix: String
    let table: RouteTable

    func on(_ method: HTTPRequest.Method, _ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) {
        let full = prefix + (path.isEmpty ? "" : "/" + path)
        table.add(method, full)
        group.on(RouterPath(path), method: method, use: handler)
    }

    func get(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) { on(.get, path, use: handler) }
    func post(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) { on(.post, path, use: handler) }
    func patch(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) { on(.patch, path, use: handler) }
    func delete(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) { on(.delete, path, use: handler) }
}

extension RequestContext {
    /// A path parameter that must be a UUID; anything else names nothing (404).
    func uuid(_ name: String, _ what: String) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else { throw APIError.notFound(what) }
        return id
    }
}

/// Reads and checks query parameters, collecting problems into one 422.
struct QueryReader {
    let request: Request
    var validator = Validator()

    init(_ request: Request) { self.request = request }

    func raw(_ name: String) -> String? { request.uri.queryParameters.get(name) }

    mutating func double(_ name: String, in range: ClosedRange<Double>, required: Bool = false) -> Double? {
        guard let text = raw(name) else {
            if required { validator.fail(name, "is required") }
            return nil
        }
        guard text.count <= 32, let value = Double(text), value.isFinite, range.contains(value) else {
            validator.fail(name, "must be a number between \(range.lowerBound) and \(range.upperBound)")
            return nil
        }
        return value
    }

    mutating func int(_ name: String, in range: ClosedRange<Int>) -> Int? {
        guard let text = raw(name) else { return nil }
        guard text.count <= 12, let value = Int(text), range.contains(value) else {
            validator.fail(name, "must be a whole number between \(range.lowerBound) and \(range.upperBound)")
            return nil
        }
        return value
    }

    mutating func limit(default value: Int, max: Int) -> Int { int("limit", in: 1...max) ?? value }

    mutating func date(_ name: String) -> Date? {
        guard let text = raw(name) else { return nil }
        guard let date = RFC3339.parse(text) else {
            validator.fail(name, "must be an RFC 3339 date-time such as 2026-05-01T18:00:00Z")
            return nil
        }
        return date
    }

    mutating func oneOf(_ name: String, _ allowed: [String]) -> String? {
        guard let text = raw(name) else { return nil }
        guard allowed.contains(text) else {
            validator.fail(name, "must be one of \(allowed.joined(separator: ", "))")
            return nil
        }
        return text
    }

    mutating func bool(_ name: String) -> Bool? {
        guard let text = raw(name) else { return nil }
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default:
            validator.fail(name, "must be true or false")
            return nil
        }
    }

    mutating func cursor<C: CursorCodable>(_ type: C.Type) -> C? {
        guard let text = raw("cursor") else { return nil }
        guard let cursor = C(cursor: text) else {
            validator.fail("cursor", "is not a cursor this list gave out")
            return nil
        }
        return cursor
    }

    func throwIfInvalid() throws { try validator.throwIfInvalid() }
}

/// A keyset position serialised as an opaque string (base64url of a few fields).
protocol CursorCodable {
    init?(cursor: String)
    var cursor: String { get }
}

enum OpaqueCursor {
    static func encode(_ fields: [String]) -> String {
        // base64url without padding, mapped byte by byte (a page of results makes one).
        var out: [UInt8] = []
        for byte in Data(fields.joined(separator: "\u{1F}").utf8).base64EncodedData() {
            switch byte {
            case UInt8(ascii: "+"): out.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): out.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String, count: Int) -> [String]? {
        guard text.count <= 512 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let string = String(data: data, encoding: .utf8) else { return nil }
        let fields = string.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
        return fields.count == count ? fields : nil
    }
}

/// A cursor of (time, id) for lists ordered by a timestamp.
struct TimeCursor: CursorCodable, Sendable {
    var time: Date
    var id: UUID

    init(time: Date, id: UUID) {
        self.time = time
        self.id = id
    }

    init?(cursor: String) {
        guard let f = OpaqueCursor.decode(cursor, count: 2), let bits = UInt64(f[0], radix: 16), let id = UUID(uuidString: f[1]) else { return nil }
        let seconds = Double(bitPattern: bits)
        guard seconds.isFinite else { return nil }
        time = Date(timeIntervalSince1970: seconds)
        self.id = id
    }

    var cursor: String { OpaqueCursor.encode([String(time.timeIntervalSince1970.bitPattern, radix: 16), id.lowercased]) }
}
