import Foundation
import GeoGrid
import Logging
import Synchronization

/// What search filters on besides sport and time, as an event's trait bits in the
/// index: bits 0–14 the levels (in half steps) the game is open to, all of them
/// when it names no range; bits 16–19 its audience; bit 24 a free place. A filter
/// asks for one bit of each group it uses, so it is answered while the grid walks
/// its cells. People in a sport's level grid carry their level's bit the same way.
enum GameTraits {
    static let allLevels: UInt64 = (1 << UInt64(Level.range.upperBound + 1)) - 1
    static let freePlaces: UInt64 = 1 << 24

    static func of(levels: ClosedRange<Level>?, audience: Audience, hasFreePlaces: Bool) -> UInt64 {
        (levels.map(self.levels) ?? allLevels) | self.audience(audience) | (hasFreePlaces ? freePlaces : 0)
    }

    static func level(_ level: Level) -> UInt64 { 1 << UInt64(level.halves) }

    /// The bits of every level in the range.
    static func levels(_ range: ClosedRange<Level>) -> UInt64 {
        let throughHighest: UInt64 = (1 << UInt64(range.upperBound.halves + 1)) - 1
        let belowLowest: UInt64 = (1 << UInt64(range.lowerBound.halves)) - 1
        return throughHighest & ~belowLowest
    }

    static func audience(_ audience: Audience) -> UInt64 {
        switch audience {
        case .anyone: 1 << 16
        case .women: 1 << 17
        case .men: 1 << 18
        case .mixed: 1 << 19
        }
    }
}
