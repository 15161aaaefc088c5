import Foundation
import GeoGrid

/// A position in WGS84 degrees.
public struct Coordinate: Sendable, Hashable, Codable {
    /// Latitude in degrees.
    public var lat: Double
    /// Longitude in degrees.
    public var lon: Double

    /// Creates a coordinate.
    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }

    /// The position as the spatial index stores it.
    var geoPoint: GeoPoint { GeoPoint(latitude: lat, longitude: lon) ?? GeoPoint(latitudeE7: 0, longitudeE7: 0) }

    /// The centre of the ~500 m grid cell holding this position: what is stored
    /// for people, so that nobody's exact position is ever kept or shown.
    ///
    /// Rows are 1/240 degree of latitude (≈ 463 m); each row has as many columns as
    /// make a cell about as wide as it is tall at that latitude.
    var snappedForPrivacy: Coordinate {
        let step = 1.0 / 240.0
        let row = ((lat + 90) / step).rounded(.down)
        let snappedLat = min(90, -90 + (row + 0.5) * step)
        let columns = max(1, (360 / step * cos(snappedLat * .pi / 180)).rounded(.down))
        let width = 360 / columns
        let column = min(columns - 1, ((lon + 180) / width).rounded(.down))
        var snappedLon = -180 + (column + 0.5) * width
        if snappedLon > 180 { snappedLon -= 360 }
        return Coordinate(lat: (snappedLat * 1e6).rounded() / 1e6, lon: (snappedLon * 1e6).rounded() / 1e6)
    }
}

/// A sport of the catalogue.
public struct Sport: Sendable, Hashable {
    /// Stable identifier, e.g. `beach-volleyball`.
    public var slug: String
    /// Display name.
    public var name: String
    /// Its bit in the spatial indexes' category masks (0…63).
    public var bit: Int
}

/// What the service knows of a user.
public struct User: Sendable, Hashable {
    public var id: UUID
    public var name: String
    public var email: String
    public var bio: String
    /// The profile photo, an upload of this service.
    public var photo: MediaRef?
    public var sports: [String]
    public var location: Coordinate?
    public var discoverable: Bool
    public var createdAt: Date
    /// Bumped by every change, so caches apply only newer rows.
    public var version: Int64 = 1
    /// The account was deleted: what is left is the row its messages point to.
    public var isDeleted = false
    /// A provider vouched for `email` (or, later, a code sent to it came back).
    public var emailVerified = false
    /// Whether they want reminders before the games they go to.
    public var reminders = true
    /// The language texts are written to them in (from their requests' `Accept-Language`).
    public var language = Language.en
    /// Whether a calendar feed link of theirs is live.
    public var hasCalendarFeed = false
    /// Their level in each sport they rated (people nearby can be filtered by it).
    public var levels: [String: Level] = [:]
}

/// A user as others see them: no email, no location.
public struct UserSummary: Sendable, Hashable {
    public var id: UUID
    public var name: String
}

/// The moment, from a clock tests can move.
public protocol AppClock: Sendable {
    /// The current instant.
    func now() -> Date
}

/// The real clock, to the millisecond (every stored instant is a whole
/// millisecond, so keyset cursors compare exactly on both engines).
public struct SystemClock: AppClock {
    public init() {}
    public func now() -> Date { Date().wholeMilliseconds }
}

extension Date {
    /// Whole milliseconds since 1970 (the spatial indexes' time tags).
    var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    /// This instant truncated to a whole millisecond.
    var wholeMilliseconds: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}

extension UUID {
    /// The canonical lowercase form used in every answer.
    var lowercased: String { text(uppercase: false) }

    /// Parses the 36-character form (`8-4-4-4-12` hexadecimal digits, either case).
    init?(text: String) {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var text = text
        let valid = text.withUTF8 { utf8 in
            guard utf8.count == 36 else { return false }
            return withUnsafeMutableBytes(of: &bytes) { out in
                var i = 0
                for n in 0..<16 {
                    if i == 8 || i == 13 || i == 18 || i == 23 {
                        guard utf8[i] == UInt8(ascii: "-") else { return false }
                        i += 1
                    }
                    guard let high = Hex.value(utf8[i]), let low = Hex.value(utf8[i + 1]) else { return false }
                    out[n] = high << 4 | low
                    i += 2
                }
                return true
            }
        }
        guard valid else { return nil }
        self.init(uuid: bytes)
    }

    /// The 36-character form (8-4-4-4-12 hexadecimal digits), written by hand:
    /// Foundation's `uuidString` goes through `sprintf` (90,000 instructions of a
    /// chat message's million, for the ids it binds).
    func text(uppercase: Bool) -> String {
        let letters: UInt8 = uppercase ? UInt8(ascii: "A") - 10 : UInt8(ascii: "a") - 10
        return String(unsafeUninitializedCapacity: 36) { out in
            withUnsafeBytes(of: uuid) { bytes in
                var i = 0
                for n in 0..<16 {
                    if n == 4 || n == 6 || n == 8 || n == 10 {
                        out[i] = UInt8(ascii: "-")
                        i += 1
                    }
                    let high = bytes[n] >> 4, low = bytes[n] & 0x0F
                    out[i] = high < 10 ? UInt8(ascii: "0") + high : letters + high
                    out[i + 1] = low < 10 ? UInt8(ascii: "0") + low : letters + low
                    i += 2
                }
            }
            return 36
        }
    }

    /// The UUID's 128 bits as a spatial index key.
    var geoKey: GeoKey {
        withUnsafeBytes(of: uuid) {
            GeoKey(high: UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)), low: UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    /// The UUID of a spatial index key.
    init(geoKey: GeoKey) {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) {
            $0.storeBytes(of: geoKey.high.bigEndian, as: UInt64.self)
            $0.storeBytes(of: geoKey.low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        self = UUID(uuid: bytes)
    }
}
