import Foundation

/// A skill level on a scale like Playtomic's: 0 to 7 in half steps, kept as whole
/// half steps (0…14). The bands README names: 0–1 beginner, 1.5–2.5 improver, 3–4
/// intermediate, 4.5–5.5 advanced, 6–7 competition.
public struct Level: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var halves: Int

    public static let range = 0...14

    /// From a number such as 3.5; nil when it is not 0 to 7 in half steps.
    public init?(_ value: Double) {
        // The range first: converting a huge double to Int would trap.
        let halves = value * 2
        guard value.isFinite, halves >= Double(Self.range.lowerBound), halves <= Double(Self.range.upperBound), halves == halves.rounded()
        else { return nil }
        self.halves = Int(halves)
    }

    init(halves: Int) { self.halves = halves }

    public var value: Double { Double(halves) / 2 }

    /// `3.5`, `4`.
    public var description: String { halves % 2 == 0 ? "\(halves / 2)" : "\(halves / 2).5" }

    public static func < (a: Level, b: Level) -> Bool { a.halves < b.halves }
}

/// A self-declared gender, optional; an event for an audience asks for it.
public enum Gender: String, Sendable, Hashable { case woman, man }

/// Who an event is for.
public enum Audience: String, Sendable, Hashable, CaseIterable {
    case anyone, women, men
    /// Teams of women and men: players who said which they are.
    case mixed
}

/// What a player says of themselves for the games they join: their gender (or
/// nothing) and their level in each sport they rated.
struct PlayerProfile: Sendable, Hashable {
    var gender: Gender?
    var levels: [String: Level]
}
