import CSQLite
import Foundation
import Logging
import NIOCore
import NIOPosix
@_spi(CodableUtilities) import SQLKit
import Synchronization

/// Where an SQLite database is.
enum SQLiteStorage: Sendable {
    /// In memory, on one connection, gone when it closes.
    case memory
    /// A file, created if missing.
    case file(path: String)
}

/// A value as SQLite holds it.
enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// An error SQLite answered: its extended result code and message.
struct SQLiteFailure: Error, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …).
    var code: Int32
    var message: String
    var description: String { "SQLite error \(code): \(message)" }

    // The extended codes are macros Swift does not import: SQLITE_CONSTRAINT | (n << 8).
    static let constraintPrimaryKey: Int32 = 19 | (6 << 8)
    static let constraintUnique: Int32 = 19 | (8 << 8)

    /// A unique or primary key constraint refused a row (a concurrent duplicate).
    var isUniqueViolation: Bool { code == Self.constraintUnique || code == Self.constraintPrimaryKey }
}
// MARK: Values to and from Swift

extension SQLiteValue {
    /// A bound value as SQLite keeps it, as SQLiteNIO stored it before: a date as
    /// seconds since 1970 (real), a UUID as its upper-case text, a Boolean as 0 or 1,
    /// anything else that is not a single value as JSON text.
    init(encoding value: any Encodable) throws {
        switch value {
        case let text as String: self = .text(text)
        case let n as Int: self = .integer(Int64(n))
        case let n as Int64: self = .integer(n)
        case let x as Double: self = .real(x)
        case let date as Date: self = .real(date.timeIntervalSince1970)
        case let id as UUID: self = .text(id.text(uppercase: true))
        case let flag as Bool: self = .integer(flag ? 1 : 0)
        case let data as Data: self = .blob([UInt8](data))
        default:
            let encoder = SQLiteValueEncoder()
            do {
                try value.encode(to: encoder)
                guard let encoded = encoder.value else { throw SQLCodingError.unsupportedOperation("missing value", codingPath: []) }
                self = encoded
            } catch is SQLCodingError {
                self = .text(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
            }
        }
    }

    /// The value as `D`, with the conversions SQLiteNIO made: a number read as text
    /// gives its digits; an integer reads as a real; a date reads from seconds since
    /// 1970 or ISO 8601 text; other types through their `Decodable` single value, or
    /// from JSON text.
    func decode<D: Decodable>(_ type: D.Type) throws -> D {
        if D.self == String.self, let text = string { return text as! D }
        if D.self == Int.self, case .integer(let n) = self { return Int(n) as! D }
        if D.self == Int64.self, case .integer(let n) = self { return n as! D }
        if D.self == Double.self, let x = real { return x as! D }
        if D.self == Date.self, let date { return date as! D }
        if D.self == Bool.self, case .integer(let n) = self, n == 0 || n == 1 { return (n == 1) as! D }
        if D.self == UUID.self, case .text(let text) = self, let id = UUID(text: text) { return id as! D }
        if D.self == Data.self, case .blob(let bytes) = self { return Data(bytes) as! D }
        if [String.self, Int.self, Int64.self, Double.self, Date.self, Bool.self, UUID.self, Data.self].contains(where: { $0 == D.self }) {
            throw DecodingError.typeMismatch(D.self, .init(codingPath: [], debugDescription: "cannot read \(D.self) from SQLite's \(self)"))
        }
        do {
            return try D(from: SQLiteValueDecoder(value: self))
        } catch is SQLCodingError {
            let json: Data =
                switch self {
                case .text(let text): Data(text.utf8)
                case .blob(let bytes): Data(bytes)
                case .integer(let n): Data(String(n).utf8)
                case .real(let x): Data(String(x).utf8)
                case .null: Data()
                }
            return try JSONDecoder().decode(D.self, from: json)
        }
    }

    private var string: String? {
        switch self {
        case .text(let text): text
        case .integer(let n): String(n)
        case .real(let x): String(x)
        case .blob, .null: nil
        }
    }

    private var real: Double? {
        switch self {
        case .real(let x): x
        case .integer(let n): Double(n)
        default: nil
        }
    }

    private var date: Date? {
        let seconds: Double
        switch self {
        case .real(let x): seconds = x
        case .integer(let n): seconds = Double(n)
        case .text(let text):
            return (try? Date(text, strategy: .iso8601)) ?? (try? Date(text, strategy: .iso8601.dateTimeSeparator(.space)))
        default: return nil
        }
        // To the microsecond from 2001, as SQLiteNIO read them: a date read back equals the one written.
        let sinceReference = seconds - Date.timeIntervalBetween1970AndReferenceDate
        return Date(timeIntervalSinceReferenceDate: (sinceReference * 1e6).rounded() / 1e6)
    }
}

/// Takes the single value a bound `Encodable` gives (an optional, a raw-value enum).
private final class SQLiteValueEncoder: Encoder, SingleValueEncodingContainer {
    var value: SQLiteValue?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<K: CodingKey>(keyedBy: K.Type) -> KeyedEncodingContainer<K> { .invalid(at: codingPath) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { .invalid(at: codingPath) }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { value = .null }
    func encode(_ value: Bool) throws { self.value = .integer(value ? 1 : 0) }
    func encode(_ value: String) throws { self.value = .text(value) }
    func encode(_ value: Double) throws { self.value = .real(value) }
    func encode(_ value: Float) throws { self.value = .real(Double(value)) }
    func encode(_ value: Int) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int64) throws { self.value = .integer(value) }
    func encode(_ value: UInt) throws { self.value = .integer(Int64(truncatingIfNeeded: value)) }
    func encode(_ value: UInt8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt64) throws { self.value = .integer(Int64(truncatingIfNeeded: value)) }
    func encode(_ value: some Encodable) throws { self.value = try SQLiteValue(encoding: value) }
}

/// Gives a `Decodable` its single value (an optional, a raw-value enum).
private struct SQLiteValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: SQLiteValue
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<K: CodingKey>(keyedBy: K.Type) throws -> KeyedDecodingContainer<K> {
        throw SQLCodingError.unsupportedOperation("keyed container", codingPath: codingPath)
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw SQLCodingError.unsupportedOperation("unkeyed container", codingPath: codingPath)
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try value.decode(T.self) }
    func decode(_ type: Bool.Type) throws -> Bool { try value.decode(Bool.self) }
    func decode(_ type: String.Type) throws -> String { try value.decode(String.self) }
    func decode(_ type: Double.Type) throws -> Double { try value.decode(Double.self) }
    func decode(_ type: Float.Type) throws -> Float { Float(try value.decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try value.decode(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try value.decode(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard let n = I(exactly: try value.decode(Int64.self)) else {
            throw DecodingError.typeMismatch(I.self, .init(codingPath: codingPath, debugDescription: "\(value) does not fit in \(I.self)"))
        }
        return n
    }
}
