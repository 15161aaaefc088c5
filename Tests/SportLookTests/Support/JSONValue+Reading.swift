import SportLook

/// Reading the service's `JSONValue` in checks: for the contract's free-form parts
/// (a notification's `data`, a push's `data`) and for the checks that look at the
/// raw shape of an answer (a key absent rather than null). Each accessor is nil when
/// the value is of another kind.
extension JSONValue {
    var string: String? { if case .string(let value) = self { value } else { nil } }
    var double: Double? { if case .number(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }

    /// The number, if it is a whole one.
    var int: Int? { double.flatMap { Int(exactly: $0) } }

    /// The member `key` of an object; nil when absent or when this is not an object.
    subscript(key: String) -> JSONValue? { object?[key] }
}
