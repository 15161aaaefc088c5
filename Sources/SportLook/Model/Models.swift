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
    /// Limited by staff: out of people nearby, their invitations reach no one.
    public var limited = false
    /// Suspended by staff since then (``suspendedUntil`` nil: for good).
    public var suspendedAt: Date? = nil
    public var suspendedUntil: Date? = nil

    /// Whether staff's suspension holds at `now`.
    public func suspended(at now: Date) -> Bool { suspensionHolds(since: suspendedAt, until: suspendedUntil, at: now) }

    /// Whether the person is in people nearby: discoverable, with a place, neither
    /// limited nor suspended (a suspension's end clears it, ``ModerationService``).
    public var findable: Bool { discoverable && location != nil && !limited && suspendedAt == nil }
}

/// A user as others see them: no email, no location.
public struct UserSummary: Sendable, Hashable {
    public var id: UUID
    public var name: String
}

extension UUID {
    /// The UUID's 128 bits as a spatial index key.
    var geoKey: GeoKey {
        withUnsafeBytes(of: uuid) {
            GeoKey(
                high: UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)),
                low: UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
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
