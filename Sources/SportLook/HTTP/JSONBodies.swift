import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A value that writes itself as JSON.
protocol JSONEncodable: Sendable {
    func encode(to json: inout JSONWriter)
}

/// A JSON response with a status.
struct JSONResponse: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    var bytes: [UInt8]
    var headers: HTTPFields = [:]

    init(status: HTTPResponse.Status = .ok, _ value: some JSONEncodable, headers: HTTPFields = [:]) {
        var json = JSONWriter(capacity: 512)
        value.encode(to: &json)
        self.status = status
        self.bytes = json.bytes
        self.headers = headers
    }

    init(status: HTTPResponse.Status = .ok, bytes: [UInt8]) {
        self.status = status
        self.bytes = bytes
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// `{"items": [...], "next_cursor": ...}`.
struct Page<Item: JSONEncodable>: JSONEncodable {
    var items: [Item]
    var nextCursor: String?

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
        if let contentType = request.headers[.contentType],
           !contentType.lowercased().hasPrefix("application/json") && !contentType.lowercased().contains("+json") {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "Send the body as application/json.")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw APIError(.contentTooLarge, code: "payload_too_large", message: "The body is larger than \(context.maxUploadSize / 1024) KiB.")
        }
        let bytes = buffer.readableBytesView
        guard !bytes.isEmpty else { throw APIError.badRequest("invalid_json", "The request needs a JSON body.") }
        guard request.headers[.contentType] != nil else {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "Send the body as application/json.")
        }
        try checkDepth(bytes)
        do {
            return try decoder.decode(T.self, from: Data(bytes))
        } catch let error as APIError {
            throw error
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw APIError.badRequest("invalid_json", "The body is not valid JSON.")
        } catch let error as DecodingError {
            throw describe(error)
        }
    }

    /// Rejects nesting deeper than ``maxDepth`` before the decoder sees it.
    static func checkDepth(_ bytes: some Collection<UInt8>) throws {
        var depth = 0, inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == 92 { escaped = true } else if byte == 34 { inString = false }
                continue
            }
            switch byte {
            case 34: inString = true
            case 91, 123:
                depth += 1
                if depth > maxDepth { throw APIError.badRequest("too_deep", "JSON nested deeper than \(maxDepth) levels.") }
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
            return .validation([name(context.codingPath): "must be \(describe(type))"])
        case .valueNotFound(let type, let context):
            return .validation([name(context.codingPath): "must be \(describe(type)), not null"])
        case .keyNotFound(let key, let context):
            return .validation([name(context.codingPath + [key]): "is required"])
        case .dataCorrupted(let context):
            return .validation([name(context.codingPath): "is not valid"])
        @unknown default:
            return .badRequest("invalid_json", "The body could not be read.")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is Bool.Type: "true or false"
        case is Array<Any>.Type: "an array"
        default: type == [String].self || type == [UUID].self ? "an array" : "an object or value of the documented type"
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

/// Collects per-field problems and throws them together as one 422.
struct Validator {
    private(set) var fields: [String: String] = [:]

    mutating func fail(_ field: String, _ message: String) {
        if fields[field] == nil { fields[field] = message }
    }

    mutating func check(_ condition: Bool, _ field: String, _ message: String) {
        if !condition { fail(field, message) }
    }

    /// A trimmed string of `range` characters and at most `maxBytes` bytes of
    /// UTF-8 (four per character unless given), normalised to NFC, with no
    /// control characters (tab, line feed and carriage return only in a
    /// `multiline` field).
    ///
    /// Characters alone bound nothing: one letter followed by 30,000 combining
    /// accents is one character of 60 KB.
    mutating func text(_ value: String?, _ field: String, _ range: ClosedRange<Int>, maxBytes: Int? = nil, multiline: Bool = false, required: Bool = true) -> String? {
        guard let value else {
            if required { fail(field, "is required") }
            return nil
        }
        let byteLimit = maxBytes ?? TextLimits.bytes(forCharacters: range.upperBound)
        // Checked before normalising: NFC never more than triples the bytes, and
        // a huge input should cost no normalisation at all.
        if value.utf8.count > byteLimit * 3 {
            fail(field, "must be at most \(range.upperBound) characters and \(byteLimit) bytes of UTF-8")
            return nil
        }
        if let control = value.unicodeScalars.first(where: { TextLimits.isForbidden($0, multiline: multiline) }) {
            fail(field, control.value == 0 ? "must not contain NUL characters" : "must not contain control characters" + (multiline ? " other than tab and line breaks" : ""))
            return nil
        }
        let trimmed = value.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.count < range.lowerBound {
            fail(field, range.lowerBound <= 1 ? "must not be empty" : "must be at least \(range.lowerBound) characters")
            return nil
        }
        if trimmed.count > range.upperBound || trimmed.utf8.count > byteLimit {
            fail(field, "must be at most \(range.upperBound) characters and \(byteLimit) bytes of UTF-8")
            return nil
        }
        return trimmed
    }

    /// An absolute http(s) URI (RFC 3986: ASCII, a host name or address) of at most 2,048 characters.
    mutating func url(_ value: String?, _ field: String) -> String? {
        guard let value else { return nil }
        let printableASCII = value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
        guard value.count <= 2_048, printableASCII, let components = URLComponents(string: value),
              components.scheme == "https" || components.scheme == "http",
              let host = components.host, !host.isEmpty,
              host.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || ".-:[]".unicodeScalars.contains($0) }),
              !host.hasPrefix("."), !host.hasPrefix("-")
        else {
            fail(field, "must be an http(s) URL of at most 2048 characters")
            return nil
        }
        return value
    }

    /// Throws the collected problems, if any.
    func throwIfInvalid() throws {
        if !fields.isEmpty { throw APIError.validation(fields) }
    }
}

/// How text fields are bounded: in characters (what people count) and in bytes
/// (what memory, the database and every page that carries the text pay for).
enum TextLimits {
    /// The byte limit that goes with a character limit: four bytes a character,
    /// room for any script (CJK is three a character) and most emoji.
    static func bytes(forCharacters characters: Int) -> Int { characters * 4 }

    /// Control characters (Unicode Cc): never in a one-line field; in a
    /// multi-line one, only tab, line feed and carriage return. Nor the bidi
    /// embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069),
    /// which make text display other than it reads ("moc.elgoog" tricks).
    static func isForbidden(_ scalar: Unicode.Scalar, multiline: Bool) -> Bool {
        let v = scalar.value
        if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) { return true }
        guard v < 0x20 || (0x7F...0x9F).contains(v) else { return false }
        return !(multiline && (v == 0x09 || v == 0x0A || v == 0x0D))
    }
}

/// A location as clients send it: `{lat, lon}` in degrees.
struct LocationInput: Decodable, Sendable {
    var lat: Double
    var lon: Double

    func validated(_ field: String, into validator: inout Validator) -> Coordinate? {
        guard lat.isFinite, (-90...90).contains(lat) else { validator.fail("\(field).lat", "must be between -90 and 90"); return nil }
        guard lon.isFinite, (-180...180).contains(lon) else { validator.fail("\(field).lon", "must be between -180 and 180"); return nil }
        return Coordinate(lat: lat, lon: lon)
    }
}

/// A PATCH field: absent (leave as is), `null` (clear), or a value.
enum Patch<Value: Decodable & Sendable>: Sendable {
    case absent
    case null
    case value(Value)

    var isAbsent: Bool { if case .absent = self { true } else { false } }
}

extension KeyedDecodingContainer {
    func patch<Value: Decodable>(_ key: Key) throws -> Patch<Value> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(Value.self, forKey: key))
    }
}
