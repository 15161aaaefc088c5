import Foundation

/// A sentence for people, as the code says it in English, with its holes: an error's
/// message or a field's problem. Its ``template`` (the English text with `{0}`, `{1}`…
/// where the values go) is the key the catalogue finds it by in another language, so it
/// is written where it is said, always as `Sentence("…")`: `CatalogueTests` reads every
/// one of them out of the sources and fails when a language lacks one.
public struct Sentence: Sendable, Hashable, CustomStringConvertible {
    /// A value put in a sentence: text as it is, or a sentence said in the same language.
    public enum Argument: Sendable, Hashable {
        case text(String)
        case sentence(Sentence)
    }

    /// The English text, `{n}` where the `n`th argument goes.
    public let template: String
    public let arguments: [Argument]

    /// A sentence as written in the code: a string literal, interpolations and all.
    public init(_ text: Text) {
        template = text.template
        arguments = text.arguments
    }

    /// The English sentence.
    public var english: String { filled { _ in nil } }
    public var description: String { english }

    /// The sentence in the language `translated` gives templates in (nil: the English
    /// one), each argument put in its place (a sentence argument translated the same way).
    public func filled(_ translated: (String) -> String?) -> String {
        let template = translated(self.template) ?? self.template
        guard !arguments.isEmpty else { return template }
        var out = ""
        Self.scan(template) { piece in
            switch piece {
            case .text(let text): out += text
            case .hole(let n) where arguments.indices.contains(n):
                switch arguments[n] {
                case .text(let text): out += text
                case .sentence(let sentence): out += sentence.filled(translated)
                }
            case .hole(let n): out += "{\(n)}"
            }
        }
        return out
    }

    /// How many holes a template has: the distinct `{n}` in it.
    public static func holes(in template: String) -> Set<Int> {
        var holes: Set<Int> = []
        scan(template) { if case .hole(let n) = $0 { holes.insert(n) } }
        return holes
    }

    private enum Piece {
        case text(Substring)
        case hole(Int)
    }

    /// Reads `template` in order as text and `{n}` holes (a brace around anything else is text).
    private static func scan(_ template: String, _ take: (Piece) -> Void) {
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let n = Int(after[..<close]) {
                take(.text(rest[..<open]))
                take(.hole(n))
                rest = after[after.index(after: close)...]
            } else {
                take(.text(rest[...open]))
                rest = after
            }
        }
        take(.text(rest))
    }

    /// What `Sentence("…")` is written with: the literal's text, each interpolation a hole.
    public struct Text: ExpressibleByStringInterpolation, Sendable {
        var template: String
        var arguments: [Argument]

        public init(stringLiteral value: String) {
            template = value
            arguments = []
        }

        public init(stringInterpolation: Interpolation) {
            template = stringInterpolation.template
            arguments = stringInterpolation.arguments
        }

        public struct Interpolation: StringInterpolationProtocol {
            var template = ""
            var arguments: [Argument] = []

            public init(literalCapacity: Int, interpolationCount: Int) {
                template.reserveCapacity(literalCapacity + 3 * interpolationCount)
            }

            public mutating func appendLiteral(_ literal: String) { template += literal }

            /// A sentence inside a sentence (a thing's name): said in the reader's language too.
            public mutating func appendInterpolation(_ sentence: Sentence) { hole(.sentence(sentence)) }

            public mutating func appendInterpolation(_ value: some CustomStringConvertible) { hole(.text(value.description)) }

            private mutating func hole(_ argument: Argument) {
                template += "{\(arguments.count)}"
                arguments.append(argument)
            }
        }
    }
}
