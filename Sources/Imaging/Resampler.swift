import Foundation

/// Resizes images with a Lanczos-3 filter, separably (rows, then columns).
///
/// Shrinking widens the filter by the shrink factor so every source pixel contributes
/// (no aliasing); weights are fixed point (14 bits) and the arithmetic integer, so the
/// result is the same on every machine.
public enum Resampler {
    /// `source` cut to `rect` and resized to `width` × `height`.
    public static func resize(_ source: Pixels, from rect: PixelRect? = nil, width: Int, height: Int) -> Pixels {
        let rect = rect ?? PixelRect(x: 0, y: 0, width: source.width, height: source.height)
        precondition(
            rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= source.width && rect.y + rect.height <= source.height,
            "rectangle outside the image")
        precondition(width > 0 && height > 0, "empty output")
        if rect.width == width && rect.height == height && rect.x == 0 && rect.y == 0 && width == source.width && height == source.height {
            return source
        }
        let columns = Contributions(source: rect.width, offset: rect.x, output: width)
        let rows = Contributions(source: rect.height, offset: rect.y, output: height)
        // Rows first, only those the column pass will read.
        let firstRow = rows.first
        let lastRow = rows.last
        var wide = [UInt8](repeating: 0, count: width * (lastRow - firstRow + 1) * 3)
        source.bytes.withUnsafeBufferPointer { input in
            wide.withUnsafeMutableBufferPointer { out in
                columns.weights.withUnsafeBufferPointer { weights in
                    for y in firstRow...lastRow {
                        let inRow = input.baseAddress! + y * source.width * 3
                        let outRow = out.baseAddress! + (y - firstRow) * width * 3
                        for x in 0..<width {
                            var r: Int32 = 0
                            var g: Int32 = 0
                            var b: Int32 = 0
                            var pixel = inRow + columns.starts[x] * 3
                            for tap in columns.range(x) {
                                let weight = weights[tap]
                                r += weight * Int32(pixel[0])
                                g += weight * Int32(pixel[1])
                                b += weight * Int32(pixel[2])
                                pixel += 3
                            }
                            outRow[x * 3] = Contributions.clamp(r)
                            outRow[x * 3 + 1] = Contributions.clamp(g)
                            outRow[x * 3 + 2] = Contributions.clamp(b)
                        }
                    }
                }
            }
        }
        var output = [UInt8](repeating: 0, count: width * height * 3)
        let stride = width * 3
        wide.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                var sums = [Int32](repeating: 0, count: stride)
                sums.withUnsafeMutableBufferPointer { sums in
                    for y in 0..<height {
                        for i in 0..<stride { sums[i] = 0 }
                        let start = rows.starts[y]
                        let taps = rows.range(y)
                        for tap in taps {
                            let weight = rows.weights[tap]
                            let row = input.baseAddress! + (start + tap - taps.lowerBound - firstRow) * stride
                            for i in 0..<stride { sums[i] += weight * Int32(row[i]) }
                        }
                        let outRow = out.baseAddress! + y * stride
                        for i in 0..<stride { outRow[i] = Contributions.clamp(sums[i]) }
                    }
                }
            }
        }
        return Pixels(width: width, height: height, bytes: output)
    }

    /// The size that fits `width` × `height` within `maxWidth` × `maxHeight` keeping the
    /// proportions, never larger than it is.
    public static func fit(width: Int, height: Int, maxWidth: Int, maxHeight: Int) -> (width: Int, height: Int) {
        let scale = min(1, Double(maxWidth) / Double(width), Double(maxHeight) / Double(height))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}

/// For each output position along one axis, the source positions it reads and their
/// weights.
struct Contributions {
    static let bits: Int32 = 14
    static let one: Int32 = 1 << bits

    /// The first source index each output reads (absolute, offset included).
    var starts: [Int] = []
    /// Where each output's weights begin in `weights`; one more entry than outputs.
    var bounds: [Int] = [0]
    var weights: [Int32] = []

    init(source: Int, offset: Int, output: Int) {
        let scale = Double(source) / Double(output)
        let stretch = max(scale, 1)
        let support = 3 * stretch
        for x in 0..<output {
            let centre = (Double(x) + 0.5) * scale - 0.5
            let low = max(0, Int((centre - support).rounded(.up)))
            let high = min(source - 1, Int((centre + support).rounded(.down)))
            var real: [Double] = []
            for i in low...max(low, high) { real.append(Self.lanczos3((Double(i) - centre) / stretch)) }
            let total = real.reduce(0, +)
            // Integer weights that add up to exactly one, the rounding error put on the largest.
            var fixed = real.map { Int32(($0 / total * Double(Self.one)).rounded()) }
            let error = Self.one - fixed.reduce(0, +)
            if let largest = fixed.indices.max(by: { fixed[$0] < fixed[$1] }) { fixed[largest] += error }
            starts.append(offset + low)
            weights += fixed
            bounds.append(weights.count)
        }
    }

    func range(_ output: Int) -> Range<Int> { bounds[output]..<bounds[output + 1] }
    var first: Int { starts.first ?? 0 }
    var last: Int { zip(starts, 0..<starts.count).map { $0 + range($1).count - 1 }.max() ?? 0 }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if abs(x) >= 3 { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }

    @inline(__always)
    static func clamp(_ sum: Int32) -> UInt8 {
        let value = (sum + (one >> 1)) >> bits
        return UInt8(truncatingIfNeeded: min(max(value, 0), 255))
    }
}
