/// An 8-bit RGB image in memory, rows packed without padding.
public struct Pixels: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 3` bytes, red, green and blue of each pixel in turn, row by row.
    public var bytes: [UInt8]

    public init(width: Int, height: Int, bytes: [UInt8]) {
        precondition(width > 0 && height > 0 && bytes.count == width * height * 3, "pixel buffer of the wrong size")
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// The red, green and blue of the pixel at (`x`, `y`).
    public subscript(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        let offset = (y * width + x) * 3
        return (bytes[offset], bytes[offset + 1], bytes[offset + 2])
    }
}

/// A rectangle of pixels within an image.
public struct PixelRect: Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The largest centred square within `width` × `height`.
    public static func centredSquare(width: Int, height: Int) -> PixelRect {
        let side = min(width, height)
        return PixelRect(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
    }
}
