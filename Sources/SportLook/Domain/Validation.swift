import Foundation

/// Collects per-field problems and throws them together as one 422.
struct Validator {
    private(set) var fields: [String: Sentence] = [:]

    mutating func fail(_ field: String, _ message: Sentence) {
        if fields[field] == nil { fields[field] = message }
    }

    mutating func check(_ condition: Bool, _ field: String, _ message: Sentence) {
        if !condition { fail(field, message) }
    }

    /// The value of a field that may be left out but not be null.
    mutating func nonNull<Value>(_ patch: Patch<Value>, _ field: String) -> Value? {
        if case .null = patch { fail(field, Sentence("must not be null")) }
        return patch.given
    }

    /// A trimmed string of `range` characters and at most `maxBytes` bytes of
    /// UTF-8 (four per character unless given), normalised to NFC, with no
    /// control characters (tab, line feed and carriage return only in a
    /// `multiline` field).
    ///
    /// Characters alone bound nothing: one letter followed by 30,000 combining
    /// accents is one character of 60 KB.
    mutating func text(
        _ value: String?, _ field: String, _ range: ClosedRange<Int>, maxBytes: Int? = nil, multiline: Bool = false, required: Bool = true
    ) -> String? {
        guard let value else {
            if required { fail(field, Sentence("is required")) }
            return nil
        }
        let byteLimit = maxBytes ?? TextLimits.bytes(forCharacters: range.upperBound)
        // Checked before normalising: NFC never more than triples the bytes, and
        // a huge input should cost no normalisation at all.
        if value.utf8.count > byteLimit * 3 {
            fail(field, Sentence("must be at most \(range.upperBound) characters and \(byteLimit) bytes of UTF-8"))
            return nil
        }
        if let control = value.unicodeScalars.first(where: { TextLimits.isForbidden($0, multiline: multiline) }) {
            fail(
                field,
                control.value == 0
                    ? Sentence("must not contain NUL characters")
                    : multiline
                        ? Sentence("must not contain control characters other than tab and line breaks")
                        : Sentence("must not contain control characters"))
            return nil
        }
        // The contract's maxLength counts the code points of the text as sent: past it, the
        // text is refused whatever its trimmed, composed length would be.
        if value.unicodeScalars.count > range.upperBound {
            fail(field, Sentence("must be at most \(range.upperBound) characters and \(byteLimit) bytes of UTF-8"))
            return nil
        }
        let trimmed = value.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.count < range.lowerBound {
            fail(field, range.lowerBound <= 1 ? Sentence("must not be empty") : Sentence("must be at least \(range.lowerBound) characters"))
            return nil
        }
        if trimmed.count > range.upperBound || trimmed.utf8.count > byteLimit {
            fail(field, Sentence("must be at most \(range.upperBound) characters and \(byteLimit) bytes of UTF-8"))
            return nil
        }
        return trimmed
    }

    /// A person's name: one line of 1–80 characters (``text(_:_:_:maxBytes:multiline:required:)``)
    /// without the invisible and format characters that make two names look alike or
    /// a name look empty (``TextLimits/isInvisibleInNames(_:)``).
    mutating func name(_ value: String?, _ field: String = "name") -> String? {
        guard let name = text(value, field, 1...80) else { return nil }
        var previous: Unicode.Scalar?
        for scalar in name.unicodeScalars {
            if TextLimits.isInvisibleInNames(scalar, after: previous) {
                fail(
                    field,
                    Sentence("must not contain invisible or format characters (U+\(String(scalar.value, radix: 16, uppercase: true)))"))
                return nil
            }
            previous = scalar
        }
        // Something to see: a letter, a digit, a symbol or a punctuation mark.
        guard name.unicodeScalars.contains(where: TextLimits.isVisible) else {
            fail(field, Sentence("must contain a letter, digit or symbol"))
            return nil
        }
        return name
    }

    /// An IANA time zone (`Europe/Copenhagen`, or `UTC`), by the identifier.
    mutating func timeZone(_ identifier: String?, _ field: String = "time_zone") -> TimeZone? {
        if let identifier, identifier.utf8.count <= 64, TimeZone.knownTimeZoneIdentifiers.contains(identifier) || identifier == "UTC",
            let zone = TimeZone(identifier: identifier)
        {
            return zone
        }
        fail(field, identifier == nil ? Sentence("is required") : Sentence("must be an IANA time zone such as Europe/Copenhagen"))
        return nil
    }

    /// When to remind the people going: at most ``maxReminders`` times, each 5 minutes to
    /// 14 days before the start; kept distinct, largest first.
    mutating func reminders(_ minutes: [Int], _ field: String = "reminders") -> [Int]? {
        guard minutes.count <= Self.maxReminders, minutes.allSatisfy(Self.reminderRange.contains) else {
            fail(field, Sentence("must be at most \(Self.maxReminders) times, each 5 to 20160 minutes (14 days) before the start"))
            return nil
        }
        return Array(Set(minutes)).sorted(by: >)
    }

    static let maxReminders = 4
    static let reminderRange = 5...20_160

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
            fail(field, Sentence("must be an http(s) URL of at most 2048 characters"))
            return nil
        }
        return value
    }

    /// Throws the collected problems, if any.
    func throwIfInvalid() throws {
        if !fields.isEmpty { throw DomainError.validation(fields) }
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

extension TextLimits {
    /// Characters that show nothing, or change how what follows shows, refused in
    /// names: the soft hyphen, the Mongolian vowel separator, zero-width space, the
    /// direction marks (LRM, RLM, ALM), the line and paragraph separators, word joiner
    /// and the invisible operators (U+2060–U+2064), the other invisible format
    /// characters (U+2065, U+206A–U+206F), blank fillers (Hangul U+115F, U+1160,
    /// U+3164, U+FFA0; the blank Braille pattern U+2800), the byte-order mark,
    /// interlinear annotations (U+FFF9–U+FFFB), and every other character Unicode
    /// says is ignorable by default (combining grapheme joiner, variation selectors,
    /// tag characters…). Three are kept where what they join needs them: the zero-width
    /// joiner after an emoji (👨‍👩‍👧), the emoji presentation selector after a
    /// symbol, the zero-width non-joiner after a letter beyond Latin (Persian, Indic
    /// scripts); and tag characters only in a flag's sequence (🏴 and its tags).
    static func isInvisibleInNames(_ scalar: Unicode.Scalar, after previous: Unicode.Scalar?) -> Bool {
        let v = scalar.value
        switch v {
        case 0x200D: return !(previous.map { $0.properties.isEmoji && $0.value > 0xFF || $0.value == 0xFE0F } ?? false)
        case 0xFE0F: return !(previous.map { $0.properties.isEmoji && $0.value > 0xFF } ?? false)
        case 0x200C: return !(previous.map { $0.value > 0x024F && $0.properties.isAlphabetic } ?? false)
        case 0xE0020...0xE007F: return !(previous.map { $0.value == 0x1F3F4 || (0xE0020...0xE007F).contains($0.value) } ?? false)
        case 0x00AD, 0x061C, 0x115F, 0x1160, 0x180E, 0x200B, 0x200E, 0x200F, 0x2028, 0x2029, 0x2800, 0x3164, 0xFEFF, 0xFFA0,
            0x2060...0x206F, 0xFFF9...0xFFFB, 0xE0000...0xE001F:
            return true
        default:
            return scalar.properties.isDefaultIgnorableCodePoint
        }
    }

    /// A letter, digit, symbol or punctuation mark: something a name shows.
    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber,
            .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol,
            .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
            .initialPunctuation, .finalPunctuation, .otherPunctuation:
            scalar.value != 0x3164 && scalar.value != 0x115F && scalar.value != 0x1160 && scalar.value != 0xFFA0 && scalar.value != 0x2800
        default: false
        }
    }
}

/// A location as clients send it: `{lat, lon}` in degrees.
struct LocationInput: Decodable, Sendable {
    var lat: Double
    var lon: Double

    func validated(_ field: String, into validator: inout Validator) -> Coordinate? {
        guard lat.isFinite, (-90...90).contains(lat) else {
            validator.fail("\(field).lat", Sentence("must be between -90 and 90"))
            return nil
        }
        guard lon.isFinite, (-180...180).contains(lon) else {
            validator.fail("\(field).lon", Sentence("must be between -180 and 180"))
            return nil
        }
        return Coordinate(lat: lat, lon: lon)
    }
}
