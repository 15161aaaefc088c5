import Foundation

/// Scripts whose letters pass for one another (Latin "a", Cyrillic "а", Greek "α"…),
/// and the names that mix them inside one word — the usual way to pass for
/// someone else ("Аlex" with a Cyrillic А). Such names are flagged for moderators,
/// not refused: a word may mix scripts for good reasons, rarely.
enum LookAlikeScripts {
    enum Script: String, CaseIterable, Sendable {
        case latin = "Latin", greek = "Greek", cyrillic = "Cyrillic", armenian = "Armenian", cherokee = "Cherokee"
    }

    /// The script of a letter, among those that look alike; `nil` for anything else.
    static func script(of scalar: Unicode.Scalar) -> Script? {
        guard scalar.properties.isAlphabetic else { return nil }
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x1E00...0x1EFF, 0xFF21...0xFF3A, 0xFF41...0xFF5A, 0x2C60...0x2C7F, 0xA720...0xA7FF:
            return .latin
        case 0x370...0x3FF, 0x1F00...0x1FFF: return .greek
        case 0x400...0x52F, 0x1C80...0x1C8F, 0x2DE0...0x2DFF, 0xA640...0xA69F: return .cyrillic
        case 0x530...0x58F: return .armenian
        case 0x13A0...0x13FF, 0xAB70...0xABBF: return .cherokee
        default: return nil
        }
    }

    /// The look-alike scripts mixed inside one word of `name` (in the order of
    /// ``Script``), or `nil` when every word keeps to one.
    static func mixed(in name: String) -> [Script]? {
        var found = Set<Script>()
        for word in name.split(whereSeparator: {
            !$0.isLetter && !$0.isNumber && !$0.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .nonspacingMark })
        }) {
            let scripts = Set(word.unicodeScalars.compactMap(script(of:)))
            if scripts.count > 1 { found.formUnion(scripts) }
        }
        return found.isEmpty ? nil : Script.allCases.filter(found.contains)
    }
}
