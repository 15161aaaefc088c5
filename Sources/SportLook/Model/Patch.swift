import Foundation

/// A PATCH field: absent (leave as is), `null` (clear), or a value.
enum Patch<Value: Decodable & Sendable>: Sendable {
    case absent
    case null
    case value(Value)

    var isAbsent: Bool { if case .absent = self { true } else { false } }

    /// The value given; nil when the field is absent or null.
    var given: Value? { if case .value(let value) = self { value } else { nil } }

    /// What the field will be over `current`: the value given, nil when cleared, `current` when absent.
    func over(_ current: Value?) -> Value? {
        switch self {
        case .value(let value): value
        case .null: nil
        case .absent: current
        }
    }
}

extension KeyedDecodingContainer {
    func patch<Value: Decodable>(_ key: Key) throws -> Patch<Value> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(Value.self, forKey: key))
    }
}
