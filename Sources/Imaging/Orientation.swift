/// How the stored pixels must be turned to stand upright: the EXIF Orientation tag's
/// eight values (TIFF 6.0, tag 0x0112), named by what reading them involves.
public enum Orientation: Int, Sendable {
    case upright = 1
    case mirrored = 2
    case upsideDown = 3
    case upsideDownMirrored = 4
    case transposed = 5
    case rotatedClockwise = 6
    case transverse = 7
    case rotatedCounterClockwise = 8

    /// Whether width and height trade places.
    public var swapsSides: Bool { rawValue >= 5 }

    /// The upright image.
    public func apply(to source: Pixels) -> Pixels {
        if self == .upright { return source }
        let width = swapsSides ? source.height : source.width
        let height = swapsSides ? source.width : source.height
        var output = [UInt8](repeating: 0, count: source.bytes.count)
        let sw = source.width
        let sh = source.height
        source.bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    for x in 0..<width {
                        // The stored pixel that lands at (x, y) of the upright image.
                        let (sx, sy): (Int, Int)
                        switch self {
                        case .upright: (sx, sy) = (x, y)
                        case .mirrored: (sx, sy) = (sw - 1 - x, y)
                        case .upsideDown: (sx, sy) = (sw - 1 - x, sh - 1 - y)
                        case .upsideDownMirrored: (sx, sy) = (x, sh - 1 - y)
                        case .transposed: (sx, sy) = (y, x)
                        case .rotatedClockwise: (sx, sy) = (y, sh - 1 - x)
                        case .transverse: (sx, sy) = (sw - 1 - y, sh - 1 - x)
                        case .rotatedCounterClockwise: (sx, sy) = (sw - 1 - y, x)
                        }
                        let from = (sy * sw + sx) * 3
                        let to = (y * width + x) * 3
                        out[to] = input[from]
                        out[to + 1] = input[from + 1]
                        out[to + 2] = input[from + 2]
                    }
                }
            }
        }
        return Pixels(width: width, height: height, bytes: output)
    }
}
