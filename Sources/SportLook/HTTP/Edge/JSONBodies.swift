import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A representation: a value that writes itself as JSON.
protocol JSONEncodable: Sendable {
    func encode(to json: inout JSONWriter)
}

/// A JSON response with a status.
struct JSONResponse: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    var body: ByteBuffer
    var headers: HTTPFields = [:]

    init(status: HTTPResponse.Status = .ok, _ value: some JSONEncodable, headers: HTTPFields = [:]) {
        var json = JSONWriter(capacity: 512)
        value.encode(to: &json)
        self.init(status: status, bytes: json.bytes)
        self.headers = headers
    }

    init(status: HTTPResponse.Status = .ok, bytes: [UInt8]) {
        self.status = status
        self.body = ByteBuffer(bytes: bytes)
    }

    /// A body already in a buffer (a page written straight into it: no copy more).
    init(status: HTTPResponse.Status = .ok, body: ByteBuffer) {
        self.status = status
        self.body = body
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}

/// A page of cards, `{"items": [...], "next_cursor"}`, written straight into the
/// response's buffer: room for every item's card (its range of `cards`, an object
/// left open) and a bound of its tail is reserved at once; each card is copied into
/// its own room and `tail` writes the caller's fields after it and closes it, with no
/// capacity to grow (``ReservedJSON`` over exactly that room: one bound check a write).
enum CardPageJSON {
    /// - Parameter tailBound: The most bytes an item's tail may take: a tail that would
    ///   write more stops the process (rather than write into the next item's room).
    static func body<Item>(
        cards: [UInt8], items: [Item], card: (Item) -> Range<Int>, tailBound: (Item) -> Int, nextCursor: String?,
        tail: (Item, inout ReservedJSON) -> Void
    ) -> ByteBuffer {
        var body = ByteBuffer()
        func room(_ item: Item) -> Int { 1 + card(item).count + tailBound(item) }
        let reserved = items.reduce(0) { $0 + room($1) }
        // Everything reserved at once, so that the buffer never grows (and copies) on the way.
        body.reserveCapacity(16 + reserved + 32 + (nextCursor?.utf8.count ?? 0) * 6)
        body.writeStaticString(#"{"items":["#)
        // The items are written into the buffer's memory in one go, each within its own room.
        _ = cards.withUnsafeBufferPointer { cards in
            body.writeWithUnsafeMutableBytes(minimumWritableBytes: reserved) { memory in
                var written = 0
                for (n, item) in items.enumerated() {
                    var json = ReservedJSON(UnsafeMutableRawBufferPointer(rebasing: memory[written..<(written + room(item))]))
                    if n > 0 { json.append(UInt8(ascii: ",")) }
                    json.append(UnsafeBufferPointer(rebasing: cards[card(item)]))
                    json.needsComma = true
                    tail(item, &json)
                    written += json.count
                }
                return written
            }
        }
        var json = JSONWriter(capacity: 64)
        json.arrayEnd()
        json.field("next_cursor", nextCursor)
        json.objectEnd()
        body.writeBytes(json.bytes)
        return body
    }
}

/// Bodies are limited so that no input can make the server hold much memory or
/// recurse deeply: 1 MiB (the context's limit), 32 levels of nesting.
enum RequestBody {
    static let maxDepth = 32

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    /// Decodes a JSON body: 415 for another content type, 413 when too large,
    /// 400 for malformed JSON, 422 (with the field) for a value of the wrong type.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let body = try await collect(request, context: context)
        guard body.readableBytes > 0 else { throw APIError.badRequest("invalid_json", Sentence("The request needs a JSON body.")) }
        return try decodeBody(type, body, request: request)
    }

    /// The body, after its content type is checked: 415 for another, 413 when too large.
    private static func collect(_ request: Request, context: some RequestContext) async throws -> ByteBuffer {
        if let contentType = request.headers[.contentType],
            !contentType.lowercased().hasPrefix("application/json") && !contentType.lowercased().contains("+json")
        {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: Sentence("Send the body as application/json."))
        }
        do {
            return try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw APIError(
                .contentTooLarge, code: "payload_too_large",
                message: Sentence("The body is larger than \(context.maxUploadSize / 1024) KiB."))
        }
    }

    private static func decodeBody<T: Decodable>(_ type: T.Type, _ body: ByteBuffer, request: Request) throws -> T {
        let bytes = body.readableBytesView
        guard request.headers[.contentType] != nil else {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: Sentence("Send the body as application/json."))
        }
        try checkDepth(bytes)
        do {
            return try decoder.decode(T.self, from: Data(bytes))
        } catch let error as APIError {
            throw error
        } catch let error as DomainError {
            throw error
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw APIError.badRequest("invalid_json", Sentence("The body is not valid JSON."))
        } catch let error as DecodingError {
            throw describe(error)
        }
    }

    /// ``decode(_:from:context:)`` when the request has a body; nil when it has none
    /// (no `Content-Length`, or zero, and no `Transfer-Encoding`; or a chunked body
    /// that turns out empty, as some clients send for a bodiless POST).
    static func decodeIfPresent<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T? {
        let declared = request.headers[.contentLength].map { $0 != "0" } ?? (request.headers[.transferEncoding] != nil)
        guard declared else { return nil }
        let body = try await collect(request, context: context)
        guard body.readableBytes > 0 else { return nil }
        return try decodeBody(type, body, request: request)
    }

    /// Rejects nesting deeper than ``maxDepth`` before the decoder sees it.
    static func checkDepth(_ bytes: some Collection<UInt8>) throws {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == 92 { escaped = true } else if byte == 34 { inString = false }
                continue
            }
            switch byte {
            case 34: inString = true
            case 91, 123:
                depth += 1
                if depth > maxDepth { throw APIError.badRequest("too_deep", Sentence("JSON nested deeper than \(maxDepth) levels.")) }
            case 93, 125: depth -= 1
            default: break
            }
        }
    }

    static func describe(_ error: DecodingError) -> APIError {
        func name(_ path: [any CodingKey]) -> String {
            path.map { key in key.intValue.map { "[\($0)]" } ?? snakeCase(key.stringValue) }
                .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return APIError(DomainError.validation([name(context.codingPath): Sentence("must be \(describe(type))")]))
        case .valueNotFound(let type, let context):
            return APIError(DomainError.validation([name(context.codingPath): Sentence("must be \(describe(type)), not null")]))
        case .keyNotFound(let key, let context):
            return APIError(DomainError.validation([name(context.codingPath + [key]): Sentence("is required")]))
        case .dataCorrupted(let context):
            return APIError(DomainError.validation([name(context.codingPath): Sentence("is not valid")]))
        @unknown default:
            return .badRequest("invalid_json", Sentence("The body could not be read."))
        }
    }

    private static func describe(_ type: Any.Type) -> Sentence {
        switch type {
        case is String.Type: Sentence("a string")
        case is Int.Type, is Int64.Type, is Int32.Type: Sentence("an integer")
        case is Double.Type, is Float.Type: Sentence("a number")
        case is Bool.Type: Sentence("true or false")
        case is [Any].Type: Sentence("an array")
        default: type == [String].self || type == [UUID].self ? Sentence("an array") : Sentence("an object or value of the documented type")
        }
    }

    static func snakeCase(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase {
                out += "_" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }
}

/// `{"items": [...], "next_cursor": ...}`.
extension Page: JSONEncodable where Item: JSONEncodable {
    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("items")
        json.arrayStart()
        for item in items { item.encode(to: &json) }
        json.arrayEnd()
        json.field("next_cursor", nextCursor)
        json.objectEnd()
    }
}
