import Foundation

/// A sentence with holes, in a small subset of ICU's MessageFormat: `{name}` is an
/// argument's text, and `{count, plural, one {# game} other {# games}}` picks a branch by
/// the CLDR plural category of a number (`#` in a branch is the number; `=0 {…}` matches
/// an exact value first). Braces in the text itself are written `'{'` and `'}'`.
struct MessageFormat: Sendable, Hashable {
    enum Part: Sendable, Hashable {
        case text(String)
        case argument(String)
        /// Branches by selector: `=N` for an exact value, else a plural category.
        case plural(String, [String: [Part]])
        /// The number of the plural around it.
        case number
    }

    let parts: [Part]

    /// The arguments it names, plural or not.
    var arguments: Set<String> { Self.names(in: parts) }

    init(_ template: String) throws {
        var scanner = Scanner(Array(template.unicodeScalars))
        parts = try scanner.parts(inPlural: false)
        guard scanner.atEnd else { throw FormatError("unbalanced '}' in \"\(template)\"") }
    }

    /// The sentence with `arguments` put in, plurals chosen by `language`'s rules. A
    /// missing argument reads as nothing; a plural's missing number counts as 0.
    func format(_ arguments: [String: MessageArgument], rules: PluralRules) -> String {
        var out = ""
        Self.append(parts, number: nil, arguments, rules, into: &out)
        return out
    }

    private static func append(
        _ parts: [Part], number: Double?, _ arguments: [String: MessageArgument], _ rules: PluralRules, into out: inout String
    ) {
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .argument(let name): out += arguments[name]?.text ?? ""
            case .number: out += number.map(MessageArgument.numberText) ?? "#"
            case .plural(let name, let branches):
                let value = arguments[name]?.number ?? 0
                let exact = branches["=" + MessageArgument.numberText(value)]
                let chosen = exact ?? branches[rules.category(of: value).rawValue] ?? branches["other"] ?? []
                append(chosen, number: value, arguments, rules, into: &out)
            }
        }
    }

    private static func names(in parts: [Part]) -> Set<String> {
        parts.reduce(into: Set<String>()) { names, part in
            switch part {
            case .argument(let name): names.insert(name)
            case .plural(let name, let branches):
                names.insert(name)
                for branch in branches.values { names.formUnion(Self.names(in: branch)) }
            case .text, .number: break
            }
        }
    }

    struct FormatError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var index = 0
        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }
        var atEnd: Bool { index == scalars.count }

        /// Text and holes up to an unmatched `}` (left unread) or the end.
        mutating func parts(inPlural: Bool) throws -> [Part] {
            var parts: [Part] = []
            var text = ""
            func flush() {
                if !text.isEmpty { parts.append(.text(text)) }
                text = ""
            }
            while index < scalars.count {
                let c = scalars[index]
                if c == "'", index + 2 < scalars.count, scalars[index + 2] == "'", scalars[index + 1] == "{" || scalars[index + 1] == "}" {
                    text.unicodeScalars.append(scalars[index + 1])
                    index += 3
                } else if c == "}" {
                    break
                } else if c == "{" {
                    flush()
                    index += 1
                    parts.append(try hole())
                } else if c == "#" && inPlural {
                    flush()
                    parts.append(.number)
                    index += 1
                } else {
                    text.unicodeScalars.append(c)
                    index += 1
                }
            }
            flush()
            return parts
        }

        /// After `{`: `name}` or `name, plural, sel {…} …}`.
        mutating func hole() throws -> Part {
            skipSpaces()
            let name = word()
            guard !name.isEmpty else { throw FormatError("an argument without a name") }
            skipSpaces()
            if take("}") { return .argument(name) }
            guard take(",") else { throw FormatError("'{\(name)' is not closed") }
            skipSpaces()
            guard word() == "plural" else { throw FormatError("only plural is known, in {\(name), …}") }
            skipSpaces()
            guard take(",") else { throw FormatError("{\(name), plural needs branches") }
            var branches: [String: [Part]] = [:]
            while true {
                skipSpaces()
                if take("}") { break }
                let selector = word()
                guard !selector.isEmpty else { throw FormatError("a branch without a selector in {\(name), plural, …}") }
                skipSpaces()
                guard take("{") else { throw FormatError("branch \(selector) has no text") }
                guard branches[selector] == nil else { throw FormatError("branch \(selector) twice in {\(name), plural, …}") }
                branches[selector] = try parts(inPlural: true)
                guard take("}") else { throw FormatError("branch \(selector) is not closed") }
            }
            guard branches["other"] != nil else { throw FormatError("{\(name), plural, …} has no 'other' branch") }
            return .plural(name, branches)
        }

        mutating func word() -> String {
            var word = ""
            while index < scalars.count,
                scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index])
                    || scalars[index] == "_" || scalars[index] == "="
            {
                word.unicodeScalars.append(scalars[index])
                index += 1
            }
            return word
        }

        mutating func skipSpaces() { while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 } }

        mutating func take(_ c: Unicode.Scalar) -> Bool {
            guard index < scalars.count, scalars[index] == c else { return false }
            index += 1
            return true
        }
    }
}

/// A value put into a ``MessageFormat``: text, or a number (which plurals choose by).
enum MessageArgument: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case text(String)
    case number(Double)

    init(stringLiteral value: String) { self = .text(value) }
    init(integerLiteral value: Int) { self = .number(Double(value)) }

    var text: String {
        switch self {
        case .text(let text): text
        case .number(let number): Self.numberText(number)
        }
    }

    var number: Double? {
        switch self {
        case .text(let text): Double(text)
        case .number(let number): number
        }
    }

    /// Whole numbers without a fraction ("3", not "3.0").
    static func numberText(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// CLDR's cardinal plural rules (unicode.org/cldr, plurals.xml) for a language, on the
/// operands of a decimal number: n its absolute value, i its integer digits, v the count
/// of visible fraction digits, t those digits without trailing zeros.
struct PluralRules: Sendable, Hashable {
    enum Category: String, Sendable, CaseIterable {
        case zero, one, two, few, many, other
    }

    /// The rule's name (its language's code).
    let language: String
    private let rule: @Sendable (Operands) -> Category

    static func == (lhs: PluralRules, rhs: PluralRules) -> Bool { lhs.language == rhs.language }
    func hash(into hasher: inout Hasher) { hasher.combine(language) }

    struct Operands: Sendable {
        var n: Double
        var i: Int64
        var v: Int
        var t: Int64

        init(_ value: Double) {
            // Not a number, an infinity or past what the operands hold: counted as "other".
            n = value.isFinite ? min(abs(value), 1e15) : 1e15
            i = Int64(n.rounded(.towardZero))
            let text = MessageArgument.numberText(n)
            let fraction = text.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            v = fraction.count
            t = Int64(String(fraction.reversed().drop { $0 == "0" }.reversed())) ?? 0
        }
    }

    func category(of value: Double) -> Category { rule(Operands(value)) }

    /// English: one is `i = 1 and v = 0`.
    static let english = PluralRules(language: "en") { o in o.i == 1 && o.v == 0 ? .one : .other }
    /// Danish: one is `n = 1 or t != 0 and i = 0,1` (so 1, 0.5 and 1.5 are "one").
    static let danish = PluralRules(language: "da") { o in o.n == 1 || (o.t != 0 && (o.i == 0 || o.i == 1)) ? .one : .other }

    /// The categories the language has (besides `other`, which every language has).
    var categories: Set<Category> { language == "en" || language == "da" ? [.one, .other] : [.other] }
}
