/// A position on the sphere, stored as fixed-point WGS84 degrees.
///
/// Latitude and longitude are kept as integers in units of 10⁻⁷ degree (about
/// 1.1 cm at the equator), the resolution OpenStreetMap uses. Every distance the
/// index reports is the haversine distance between two such points, so a
/// brute-force scan over the same `GeoPoint` values gives bit-identical answers.
public struct GeoPoint: Hashable, Sendable, CustomStringConvertible {
    /// Latitude in units of 10⁻⁷ degree, in −900,000,000 … 900,000,000.
    public let latitudeE7: Int32
    /// Longitude in units of 10⁻⁷ degree, in −1,800,000,000 … 1,800,000,000.
    public let longitudeE7: Int32

    /// Creates a point from fixed-point coordinates.
    /// - Parameters:
    ///   - latitudeE7: Latitude in 10⁻⁷ degree; must be within ±90°.
    ///   - longitudeE7: Longitude in 10⁻⁷ degree; must be within ±180°.
    public init(latitudeE7: Int32, longitudeE7: Int32) {
        precondition(abs(Int(latitudeE7)) <= 900_000_000, "latitude out of range")
        precondition(abs(Int(longitudeE7)) <= 1_800_000_000, "longitude out of range")
        self.latitudeE7 = latitudeE7
        self.longitudeE7 = longitudeE7
    }

    /// Creates a point from degrees, rounding to the nearest 10⁻⁷ degree.
    ///
    /// Returns `nil` when the latitude is outside −90…90, the longitude outside
    /// −180…180, or either is not a finite number.
    /// - Parameters:
    ///   - latitude: Latitude in degrees.
    ///   - longitude: Longitude in degrees.
    public init?(latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite,
            (-90.0...90.0).contains(latitude), (-180.0...180.0).contains(longitude)
        else { return nil }
        self.latitudeE7 = Int32((latitude * 1e7).rounded())
        self.longitudeE7 = Int32((longitude * 1e7).rounded())
    }

    /// Latitude in degrees.
    @inlinable @inline(__always) public var latitude: Double { Double(latitudeE7) * 1e-7 }
    /// Longitude in degrees.
    @inlinable @inline(__always) public var longitude: Double { Double(longitudeE7) * 1e-7 }

    /// `"lat,lon"` in degrees.
    public var description: String { "\(latitude),\(longitude)" }
}

/// A caller-chosen 128-bit identifier for an entry (a UUID fits exactly).
///
/// Keys order by `high`, then `low`; that order breaks ties between entries at
/// the same distance and is part of every cursor.
public struct GeoKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The most significant 64 bits.
    public let high: UInt64
    /// The least significant 64 bits.
    public let low: UInt64

    /// Creates a key from its two halves.
    /// - Parameters:
    ///   - high: The most significant 64 bits.
    ///   - low: The least significant 64 bits.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Creates a key whose value is a small integer (handy in tests and tools).
    /// - Parameter value: The value, stored in `low`.
    public init(_ value: Int) {
        self.high = 0
        self.low = UInt64(bitPattern: Int64(value))
    }

    /// Orders by `high`, then `low`.
    public static func < (lhs: GeoKey, rhs: GeoKey) -> Bool {
        lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
    }

    /// 32 hexadecimal digits.
    public var description: String {
        let h = String(high, radix: 16)
        let l = String(low, radix: 16)
        return String(repeating: "0", count: 16 - h.count) + h + String(repeating: "0", count: 16 - l.count) + l
    }

    /// A well-mixed hash of the key for the index's own hash table.
    @inline(__always) var mixed: UInt64 {
        var x = high &* 0x9E37_79B9_7F4A_7C15 ^ low
        x ^= x >> 33
        x &*= 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        return x
    }
}

/// The small payload stored with every entry and used to filter during a scan.
///
/// `mask` is a set of up to 64 caller-defined categories (for events, the bit of
/// the sport; for people, the bits of their favourite sports); `time` is a
/// caller-defined instant (for events, the start in seconds since 1970); `traits`
/// are 40 more caller-defined bits that a filter tests in groups (for events, the
/// levels a game is open to, its audience and whether it has free places); `scope`
/// says who may find the entry at all: 0 anyone, any other number only a filter
/// that names it (for events, the group whose members alone may see it).
public struct GeoTags: Hashable, Sendable {
    /// Up to 64 categories, one bit each.
    public var mask: UInt64
    /// A caller-defined time value (e.g. seconds since 1970).
    public var time: Int64
    /// The trait bits (low 40) and the scope (high 24), in the record's one word.
    @usableFromInline var word: UInt64

    /// How many bits ``traits`` has.
    public static let traitBitCount = 40
    /// The largest scope number.
    public static let maxScope = UInt32((1 << (64 - traitBitCount)) - 1)
    @usableFromInline static let traitMask: UInt64 = (1 << UInt64(traitBitCount)) - 1

    /// Up to 40 more caller-defined bits, tested by ``GeoFilter/traitGroups``.
    public var traits: UInt64 {
        get { word & Self.traitMask }
        set {
            precondition(newValue & ~Self.traitMask == 0, "GeoTags has \(Self.traitBitCount) trait bits")
            word = (word & ~Self.traitMask) | newValue
        }
    }

    /// Who may find the entry: 0 anyone; 1 to ``maxScope`` only a filter whose
    /// ``GeoFilter/scopes`` hold this number.
    public var scope: UInt32 {
        @inline(__always) get { UInt32(truncatingIfNeeded: word >> UInt64(Self.traitBitCount)) }
        set {
            precondition(newValue <= Self.maxScope, "a scope is at most \(Self.maxScope)")
            word = (word & Self.traitMask) | (UInt64(newValue) << UInt64(Self.traitBitCount))
        }
    }

    /// Creates tags.
    /// - Parameters:
    ///   - mask: Category bits.
    ///   - time: A time value.
    ///   - traits: Trait bits (the low 40 bits only).
    ///   - scope: 0 for an entry anyone may find; otherwise the number a filter must name.
    public init(mask: UInt64 = 0, time: Int64 = 0, traits: UInt64 = 0, scope: UInt32 = 0) {
        self.mask = mask
        self.time = time
        self.word = 0
        self.traits = traits
        self.scope = scope
    }
}

/// The scopes a filter may see besides scope 0: a small set (for a person, the
/// numbers of the groups they belong to). The first 32 are held inline, two SIMD
/// vectors compared at once, so a filter carries no reference into the scan (one
/// shared array's count, bumped from every core for every candidate, cost a caller
/// in 20 groups a tenth of their searches); the rest, sorted, in an array.
public struct GeoScopes: Hashable, Sendable {
    /// Lanes of 0 are empty (0 is never a scope a filter names).
    @usableFromInline let first: SIMD16<UInt32>
    @usableFromInline let second: SIMD16<UInt32>
    /// Beyond the first 32, sorted.
    @usableFromInline let rest: [UInt32]
    /// How many.
    public let count: Int

    /// No scope but 0.
    public static let none = GeoScopes([])

    /// - Parameter scopes: Scope numbers, in any order, repeats allowed (0 is ignored).
    public init(_ scopes: some Sequence<UInt32>) {
        let all = Array(Set(scopes.filter { $0 != 0 })).sorted()
        var first = SIMD16<UInt32>(repeating: 0)
        var second = SIMD16<UInt32>(repeating: 0)
        for (i, scope) in all.prefix(32).enumerated() {
            if i < 16 { first[i] = scope } else { second[i - 16] = scope }
        }
        self.first = first
        self.second = second
        self.rest = Array(all.dropFirst(32))
        self.count = all.count
    }

    public var isEmpty: Bool { count == 0 }

    /// Whether `scope` (not 0) is one of these.
    @inline(__always) public func contains(_ scope: UInt32) -> Bool {
        let wanted = SIMD16<UInt32>(repeating: scope)
        if any((first .== wanted) .| (second .== wanted)) { return scope != 0 }
        guard count > 32 else { return false }
        var low = 0
        var high = rest.count
        while low < high {
            let mid = (low + high) / 2
            if rest[mid] < scope { low = mid + 1 } else { high = mid }
        }
        return low < rest.count && rest[low] == scope
    }
}

/// A filter applied to each candidate during the scan, before its distance is computed.
public struct GeoFilter: Sendable, Hashable {
    /// When set, an entry passes only if it shares at least one bit with this mask.
    public var anyOf: UInt64?
    /// An entry passes only if its `time` is at least this.
    public var timeFrom: Int64
    /// An entry passes only if its `time` is at most this.
    public var timeTo: Int64
    /// Up to four groups of trait bits: an entry passes only if its `traits` share
    /// at least one bit with every non-zero group (a zero group asks nothing). Each
    /// group is an "any of these" and the groups are "all of": level 3 *and* women
    /// or mixed *and* a free place.
    public var traitGroups: SIMD4<UInt64>
    /// The scopes besides 0 whose entries pass (an entry of any other scope never does).
    public var scopes: GeoScopes

    /// Creates a filter.
    /// - Parameters:
    ///   - anyOf: Category bits of which an entry must have one; `nil` accepts all.
    ///   - timeFrom: Smallest accepted `time` (inclusive).
    ///   - timeTo: Largest accepted `time` (inclusive).
    ///   - traitGroups: Groups of trait bits of each of which an entry must have one;
    ///     zero lanes are ignored.
    ///   - scopes: The scopes besides 0 an entry may have.
    public init(
        anyOf: UInt64? = nil, timeFrom: Int64 = .min, timeTo: Int64 = .max, traitGroups: SIMD4<UInt64> = .zero, scopes: GeoScopes = .none
    ) {
        self.anyOf = anyOf
        self.timeFrom = timeFrom
        self.timeTo = timeTo
        self.traitGroups = traitGroups
        self.scopes = scopes
    }

    /// The filter that accepts every entry of scope 0.
    public static let all = GeoFilter()

    /// Whether tags pass this filter.
    /// - Parameter tags: An entry's tags.
    @inline(__always) public func accepts(_ tags: GeoTags) -> Bool {
        if let anyOf, tags.mask & anyOf == 0 { return false }
        guard tags.time >= timeFrom && tags.time <= timeTo else { return false }
        let scope = tags.scope
        if scope != 0 && !scopes.contains(scope) { return false }
        // A group fails when it asks something (non-zero) and the traits share no bit with it.
        let shared = SIMD4(repeating: tags.word & GeoTags.traitMask) & traitGroups
        return !any((shared .== .zero) .& (traitGroups .!= .zero))
    }
}

/// One stored entry: its key, position and tags.
public struct GeoEntry: Hashable, Sendable {
    /// The caller's key.
    public var key: GeoKey
    /// The position.
    public var point: GeoPoint
    /// The payload used by filters.
    public var tags: GeoTags

    /// Creates an entry.
    /// - Parameters:
    ///   - key: The caller's key.
    ///   - point: The position.
    ///   - tags: The payload used by filters.
    public init(key: GeoKey, point: GeoPoint, tags: GeoTags = GeoTags()) {
        self.key = key
        self.point = point
        self.tags = tags
    }
}

/// One answer of a query: an entry and its distance from the query's centre.
public struct GeoHit: Hashable, Sendable {
    /// The entry found.
    public var entry: GeoEntry
    /// Great-circle distance from the query's centre, in metres.
    public var distance: Double

    /// The keyset position of this hit, to continue a query after it. For a search
    /// that prefers some bits, use ``cursor(preferring:)``.
    public var cursor: GeoCursor { GeoCursor(distance: distance, key: entry.key) }

    /// The keyset position of this hit in a search preferring `mask`'s bits.
    public func cursor(preferring mask: UInt64) -> GeoCursor {
        GeoCursor(distance: distance, key: entry.key, shared: (entry.tags.mask & mask).nonzeroBitCount)
    }
}

/// A keyset position in a query's order (distance, then key; for a search that
/// prefers some bits, how many of them are shared first).
///
/// A query given a cursor returns only hits strictly after it, so pages never
/// repeat an entry, and an entry that stays put is never skipped, whatever
/// changes between two pages.
public struct GeoCursor: Hashable, Sendable {
    /// Distance of the last hit seen, in metres.
    public var distance: Double
    /// Key of the last hit seen.
    public var key: GeoKey
    /// For a search that prefers some mask bits
    /// (``GeoGrid/search(within:of:filter:preferring:after:limit:)``): how many of
    /// them the last hit's mask shared. Other searches ignore it.
    public var shared: Int

    /// Creates a cursor.
    /// - Parameters:
    ///   - distance: Distance of the last hit seen, in metres.
    ///   - key: Key of the last hit seen.
    ///   - shared: For a search that prefers some bits: how many of them the last hit shared.
    public init(distance: Double, key: GeoKey, shared: Int = 0) {
        self.distance = distance
        self.key = key
        self.shared = shared
    }

    /// Whether a hit at `distance` with `key` comes strictly after this cursor.
    @inline(__always) func precedes(distance d: Double, key k: GeoKey) -> Bool {
        d > distance || (d == distance && k > key)
    }
}

/// A latitude/longitude box. When `minLongitude > maxLongitude` the box crosses
/// the antimeridian (e.g. 170…−170 covers 20 degrees of longitude).
public struct GeoBox: Hashable, Sendable {
    /// Southern edge in degrees.
    public var minLatitude: Double
    /// Western edge in degrees.
    public var minLongitude: Double
    /// Northern edge in degrees.
    public var maxLatitude: Double
    /// Eastern edge in degrees.
    public var maxLongitude: Double

    /// Creates a box; returns `nil` for out-of-range values or `minLatitude > maxLatitude`.
    /// - Parameters:
    ///   - minLatitude: Southern edge in degrees.
    ///   - minLongitude: Western edge in degrees.
    ///   - maxLatitude: Northern edge in degrees.
    ///   - maxLongitude: Eastern edge in degrees.
    public init?(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        guard [minLatitude, maxLatitude].allSatisfy({ $0.isFinite && (-90.0...90.0).contains($0) }),
            [minLongitude, maxLongitude].allSatisfy({ $0.isFinite && (-180.0...180.0).contains($0) }),
            minLatitude <= maxLatitude
        else { return nil }
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }

    /// Whether the box crosses the antimeridian.
    public var crossesAntimeridian: Bool { minLongitude > maxLongitude }

    /// Whether a point lies in the box (edges included).
    /// - Parameter point: The point to test.
    public func contains(_ point: GeoPoint) -> Bool {
        let lat = point.latitude
        let lon = point.longitude
        guard lat >= minLatitude && lat <= maxLatitude else { return false }
        return crossesAntimeridian
            ? (lon >= minLongitude || lon <= maxLongitude)
            : (lon >= minLongitude && lon <= maxLongitude)
    }

    /// The point that orders a box query's answers: the middle of the box, on the
    /// right side of the antimeridian when the box crosses it.
    public var center: GeoPoint {
        let lat = (minLatitude + maxLatitude) / 2
        var lon: Double
        if crossesAntimeridian {
            lon = (minLongitude + maxLongitude + 360) / 2
            if lon > 180 { lon -= 360 }
        } else {
            lon = (minLongitude + maxLongitude) / 2
        }
        // The middle of a valid box is always a valid point.
        return GeoPoint(latitude: lat, longitude: lon) ?? GeoPoint(latitudeE7: 0, longitudeE7: 0)
    }
}
