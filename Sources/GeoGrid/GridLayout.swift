#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the sphere is cut into cells.
///
/// Rows are bands of equal latitude height (`cellSize` metres). Each row has its
/// own number of columns, chosen so that a cell is at least `cellSize` wide at the
/// row's poleward edge: cells stay roughly square at every latitude instead of
/// becoming slivers near the poles, and the rows touching a pole are one cell.
/// A cell is named by a 64-bit key, row in the high half and column in the low
/// half, so sorting by key sorts by row, then column: the cells of one row
/// between two columns are one contiguous run.
struct GridLayout: Sendable {
    /// Edge of a cell in metres (north–south exactly; east–west at least this).
    let cellSize: Double
    /// Height of a row in degrees.
    let rowHeight: Double
    /// Number of rows from the south pole to the north pole.
    let rowCount: Int
    /// Columns per row.
    let columns: [Int32]
    /// Sine and cosine of each row edge's latitude (edge `r` is row `r`'s southern
    /// edge), the values `Cap` would otherwise compute for every row of every query.
    let edgeTrig: [(sin: Double, cos: Double)]

    init(cellSize: Double) {
        self.cellSize = cellSize
        let height = cellSize / GeoMath.metresPerDegree
        let count = Int((180 / height).rounded(.up))
        self.rowHeight = height
        self.rowCount = count
        self.columns = (0..<count).map { row in
            let south = -90 + Double(row) * height
            let north = Swift.min(90, south + height)
            let poleward = Swift.max(abs(south), abs(north))
            let width = 360 * cos(poleward * .pi / 180) * GeoMath.metresPerDegree
            return Int32(Swift.max(1, Swift.min(Double(Int32.max / 2), (width / cellSize).rounded(.down))))
        }
        self.edgeTrig = (0...count).map { edge in
            let φ = Swift.min(90, -90 + Double(edge) * height) * .pi / 180
            return (sin(φ), cos(φ))
        }
    }

    @inline(__always) static func key(row: Int, column: Int) -> UInt64 {
        UInt64(row) << 32 | UInt64(column)
    }

    @inline(__always) static func row(ofKey key: UInt64) -> Int { Int(key >> 32) }

    @inline(__always) func row(latitude: Double) -> Int {
        Swift.max(0, Swift.min(rowCount - 1, Int(((latitude + 90) / rowHeight).rounded(.down))))
    }

    @inline(__always) func column(longitude: Double, row: Int) -> Int {
        let count = Int(columns[row])
        let c = Int(((longitude + 180) / 360 * Double(count)).rounded(.down))
        return Swift.max(0, Swift.min(count - 1, c))
    }

    @inline(__always) func cellKey(of point: GeoPoint) -> UInt64 {
        let r = row(latitude: point.latitude)
        return Self.key(row: r, column: column(longitude: point.longitude, row: r))
    }

    /// Southern and northern edge of a row, in degrees. A row's northern edge is
    /// bit for bit the next row's southern one.
    @inline(__always) func latitudes(ofRow row: Int) -> (south: Double, north: Double) {
        (-90 + Double(row) * rowHeight, Swift.min(90, -90 + Double(row + 1) * rowHeight))
    }

    /// The columns of `row` that may hold points of `cap`, as an interval in
    /// unwrapped column space (may start below 0 or end past the last column;
    /// callers wrap it). `nil` when the row is out of reach.
    /// `count` is the row's number of columns (`columns[row]`, which the caller
    /// may read from a buffer).
    func columnSpan(row: Int, columns count: Int, cap: inout Cap) -> ColumnSpan? {
        let (south, north) = latitudes(ofRow: row)
        guard
            let halfWidth = cap.longitudeHalfWidth(
                south: south * .pi / 180, north: north * .pi / 180, southTrig: edgeTrig[row], northTrig: edgeTrig[row + 1])
        else { return nil }
        if halfWidth >= 180 || count == 1 { return ColumnSpan(lower: 0, upper: count - 1, count: count) }
        let lon = cap.longitude + 180
        let lower = Int(((lon - halfWidth) / 360 * Double(count)).rounded(.down))
        let upper = Int(((lon + halfWidth) / 360 * Double(count)).rounded(.down))
        if upper - lower + 1 >= count { return ColumnSpan(lower: 0, upper: count - 1, count: count) }
        return ColumnSpan(lower: lower, upper: upper, count: count)
    }

    /// A disc on the sphere — every point within `angle` radians of a centre — with
    /// the values each row's span reuses, and the widths at the last two row edges
    /// asked for: rows are visited outward from the centre (or south to north), so
    /// each edge is computed once.
    struct Cap {
        /// Centre longitude, degrees.
        let longitude: Double
        let φ0: Double
        let δ: Double
        let cosδ: Double
        let sinφ0: Double
        let cosφ0: Double
        /// Where the circle's meridian tangents touch, if they do.
        let φt: Double?
        private var edges = ((φ: Double.nan, width: 0.0), (φ: Double.nan, width: 0.0))

        init(origin: GeoPoint, angle: Double) {
            longitude = origin.longitude
            φ0 = origin.latitude * .pi / 180
            δ = angle * (1 + 1e-9) + 1e-12
            cosδ = cos(δ)
            sinφ0 = sin(φ0)
            cosφ0 = cos(φ0)
            let tangent = sinφ0 / cosδ
            φt = abs(tangent) < 1 ? asin(tangent) : nil
        }

        /// Half the longitude extent, in degrees, of the circle at latitude `φ`
        /// (whose sine and cosine may be given).
        private func width(at φ: Double, trig: (sin: Double, cos: Double)? = nil) -> Double {
            let cosφ = trig?.cos ?? cos(φ)
            if cosφ < 1e-12 { return 180 }
            let c = (cosδ - sinφ0 * (trig?.sin ?? sin(φ))) / (cosφ0 * cosφ)
            if c <= -1 { return 180 }
            if c >= 1 { return 0 }
            // acos(c) as 2·asin(√((1 − c)/2)): the same value (and the same
            // sensitivity to c near 1, which the slack below covers), and for the
            // narrow widths of discs up to ~100 km the arcsine is a short series
            // instead of libm's acos, a sixth of a query over empty country.
            return 2 * GeoMath.arcsine(((1 - c) / 2).squareRoot()) * 180 / .pi
        }

        private mutating func edgeWidth(at φ: Double, trig: (sin: Double, cos: Double)?) -> Double {
            if φ == edges.0.φ { return edges.0.width }
            if φ == edges.1.φ { return edges.1.width }
            let width = width(at: φ, trig: trig)
            // Keep the newest two: the edges the next row north and south share.
            edges = (edges.1, (φ, width))
            return width
        }

        /// The largest longitude difference, in degrees, between the centre and any
        /// point of the latitude band `south…north` (radians) within the cap; 180 or
        /// more when the whole band may be within reach; `nil` when none of it is.
        /// Slightly generous, so rounding never loses a cell.
        /// `southTrig` and `northTrig` are the sine and cosine of `south` and `north`.
        mutating func longitudeHalfWidth(
            south: Double, north: Double, southTrig: (sin: Double, cos: Double), northTrig: (sin: Double, cos: Double)
        ) -> Double? {
            let lower = Swift.max(south, φ0 - δ)
            let upper = Swift.min(north, φ0 + δ)
            guard lower <= upper else { return nil }
            // The whole parallel is within reach from the latitude where the point on
            // the opposite meridian is: π − φ0 − φ ≤ δ (north), or symmetric (south).
            if upper >= .pi - φ0 - δ || lower <= -.pi - φ0 + δ { return 180 }
            if cosφ0 < 1e-12 { return 180 }
            var widest = Swift.max(
                edgeWidth(at: lower, trig: lower == south ? southTrig : nil),
                edgeWidth(at: upper, trig: upper == north ? northTrig : nil))
            // Inside the band the extent peaks where the circle's meridian tangents touch.
            if let φt, φt > lower && φt < upper { widest = Swift.max(widest, width(at: φt)) }
            // Slack of 1e-9 relative and 1e-7 degree absolute covers the rounding of c near ±1, where the width is most sensitive to it.
            return widest * (1 + 1e-9) + 1e-7
        }
    }

    /// The rows that may hold points within `angle` radians of `origin`.
    func rowRange(origin: GeoPoint, angle: Double) -> ClosedRange<Int> {
        let degrees = (angle * (1 + 1e-9) + 1e-12) * 180 / .pi
        return row(latitude: Swift.max(-90, origin.latitude - degrees))...row(latitude: Swift.min(90, origin.latitude + degrees))
    }
}

/// A run of columns of one row in unwrapped column space.
struct ColumnSpan: Equatable {
    var lower: Int
    var upper: Int
    let count: Int

    var coversRow: Bool { upper - lower + 1 >= count }

    /// The real column ranges this span covers, at most two (when it wraps).
    func wrapped(_ body: (Int, Int) -> Void) {
        if coversRow {
            body(0, count - 1)
            return
        }
        let lo = ((lower % count) + count) % count
        let hi = lo + (upper - lower)
        if hi < count {
            body(lo, hi)
        } else {
            body(lo, count - 1)
            body(0, hi - count)
        }
    }
}
