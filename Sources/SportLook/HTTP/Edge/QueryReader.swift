import Foundation
import HTTPTypes
import Hummingbird

/// Reads and checks query parameters, collecting problems into one 422.
struct QueryReader {
    /// The query, split once (a nearby request reads ten parameters).
    let parameters: QueryParameters
    var validator = Validator()

    init(_ request: Request) { self.parameters = QueryParameters(request.uri.query) }

    func raw(_ name: String) -> String? { parameters.get(name) }

    mutating func double(_ name: String, in range: ClosedRange<Double>, required: Bool = false) -> Double? {
        guard let text = raw(name) else {
            if required { validator.fail(name, Sentence("is required")) }
            return nil
        }
        guard text.utf8.count <= 32, let value = Self.number(text), value.isFinite, range.contains(value) else {
            validator.fail(name, Sentence("must be a number between \(range.lowerBound) and \(range.upperBound)"))
            return nil
        }
        return value
    }

    mutating func int(_ name: String, in range: ClosedRange<Int>) -> Int? {
        guard let text = raw(name) else { return nil }
        guard text.utf8.count <= 12, let value = Int(text), range.contains(value) else {
            validator.fail(name, Sentence("must be a whole number between \(range.lowerBound) and \(range.upperBound)"))
            return nil
        }
        return value
    }

    mutating func limit(default value: Int, max: Int) -> Int { int("limit", in: 1...max) ?? value }

    mutating func date(_ name: String) -> Date? {
        guard let text = raw(name) else { return nil }
        guard let date = RFC3339.parse(text) else {
            validator.fail(name, Sentence("must be an RFC 3339 date-time such as 2026-05-01T18:00:00Z"))
            return nil
        }
        return date
    }

    mutating func oneOf(_ name: String, _ allowed: [String]) -> String? {
        guard let text = raw(name) else { return nil }
        guard allowed.contains(text) else {
            validator.fail(name, Sentence("must be one of \(allowed.joined(separator: ", "))"))
            return nil
        }
        return text
    }

    /// A skill level: a number 0 to 7 in half steps.
    mutating func level(_ name: String) -> Level? {
        guard let text = raw(name) else { return nil }
        guard text.utf8.count <= 8, let number = Self.number(text), let level = Level(number) else {
            validator.fail(name, Sentence("must be a level from 0 to 7 in half steps, such as 3.5"))
            return nil
        }
        return level
    }

    /// Comma-separated values of a closed set (`women,mixed`); empty when absent.
    mutating func list<V: RawRepresentable & CaseIterable>(_ name: String, of: V.Type) -> [V] where V.RawValue == String {
        guard let text = raw(name) else { return [] }
        let values = text.split(separator: ",", omittingEmptySubsequences: false).map { V(rawValue: String($0)) }
        guard text.utf8.count <= 256, !values.isEmpty, values.allSatisfy({ $0 != nil }) else {
            validator.fail(
                name, Sentence("must be one or more of \(V.allCases.map(\.rawValue).joined(separator: ", ")), separated by commas"))
            return []
        }
        return values.compactMap { $0 }
    }

    mutating func bool(_ name: String) -> Bool? {
        guard let text = raw(name) else { return nil }
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default:
            validator.fail(name, Sentence("must be true or false"))
            return nil
        }
    }

    mutating func cursor<C: CursorCodable>(_ type: C.Type) -> C? {
        guard let text = raw("cursor") else { return nil }
        guard let cursor = C(cursor: text) else {
            validator.fail("cursor", Sentence("is not a cursor this list gave out"))
            return nil
        }
        return cursor
    }

    func throwIfInvalid() throws { try validator.throwIfInvalid() }

    /// `Double(text)`, read directly when the text is a plain decimal (`-12.345`) of
    /// at most 15 digits: the digits as a whole number and the power of ten it is
    /// divided by are both exact doubles, so the one division rounds as the full
    /// conversion does. 900 instructions a coordinate through `strtod` before.
    static func number(_ text: String) -> Double? {
        var text = text
        let direct = text.withUTF8 { bytes -> Double? in
            var i = 0
            var digits = 0
            var fraction = -1
            var whole: UInt64 = 0
            let negative = bytes.first == UInt8(ascii: "-")
            if negative { i = 1 }
            while i < bytes.count {
                let byte = bytes[i]
                if byte == UInt8(ascii: "."), fraction < 0, digits > 0 {
                    fraction = 0
                } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 15 {
                    whole = whole * 10 + UInt64(byte - UInt8(ascii: "0"))
                    digits += 1
                    if fraction >= 0 { fraction += 1 }
                } else {
                    return nil
                }
                i += 1
            }
            guard digits > 0, fraction != 0 else { return nil }
            let value = Double(whole) / Self.powersOfTen[max(fraction, 0)]
            return negative ? -value : value
        }
        return direct ?? Double(text)
    }

    /// 10⁰ … 10¹⁵, each exact.
    private static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]
}
