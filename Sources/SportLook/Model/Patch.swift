import Foundation

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
