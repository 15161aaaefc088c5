/// What the first bytes of an upload say it is, read without decoding any pixel.
public struct ImageProbe: Sendable, Equatable {
    public enum Format: String, Sendable {
        case jpeg, png
    }

    public let format: Format
    /// As stored, before the orientation is applied.
    public let width: Int
    public let height: Int
    public let orientation: Orientation

    /// Why bytes are not an image this service takes.
    public enum Refusal: Error, Equatable, Sendable {
        /// A recognised format that is not JPEG or PNG (its name), or nothing recognised (nil).
        case unsupported(String?)
        /// A JPEG or PNG whose header cannot be read.
        case malformed(String)
    }

    /// Reads the format from the magic bytes (never from a declared type) and the
    /// size and orientation from the header.
    public static func read(_ bytes: [UInt8]) throws(Refusal) -> ImageProbe {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return try readJPEG(bytes) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return try readPNG(bytes) }
        throw .unsupported(otherFormat(bytes))
    }

    /// Names formats people commonly try to upload, for a clearer refusal.
    static func otherFormat(_ bytes: [UInt8]) -> String? {
        func ascii(_ range: Range<Int>) -> String? {
            guard bytes.count >= range.upperBound else { return nil }
            return String(decoding: bytes[range], as: UTF8.self)
        }
        if ascii(0..<4) == "GIF8" { return "GIF" }
        if ascii(0..<4) == "RIFF", ascii(8..<12) == "WEBP" { return "WebP" }
        if ascii(4..<8) == "ftyp", let brand = ascii(8..<12) {
            if ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"].contains(brand) { return "HEIC" }
            if ["avif", "avis"].contains(brand) { return "AVIF" }
            return "an ISO media file"
        }
        if bytes.starts(with: [0x42, 0x4D]) { return "BMP" }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self).lowercased()
        if head.contains("<svg") { return "SVG" }
        return nil
    }

    static func readPNG(_ bytes: [UInt8]) throws(Refusal) -> ImageProbe {
        // The IHDR chunk comes first: length 13, "IHDR", width, height (big-endian).
        guard bytes.count >= 33, String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR" else {
            throw .malformed("the PNG header is incomplete")
        }
        let width = Int(bigEndian32(bytes, 16))
        let height = Int(bigEndian32(bytes, 20))
        guard width > 0, height > 0 else { throw .malformed("the PNG header gives no size") }
        // PNG allows sides up to 2³¹ − 1; libpng refuses more than a million, and so do we,
        // before anything multiplies them.
        guard width <= 1_000_000, height <= 1_000_000 else { throw .malformed("the PNG header gives \(width) × \(height) pixels") }
        return ImageProbe(format: .png, width: width, height: height, orientation: .upright)
    }

    static func readJPEG(_ bytes: [UInt8]) throws(Refusal) -> ImageProbe {
        var position = 2
        var orientation = Orientation.upright
        while position + 4 <= bytes.count {
            guard bytes[position] == 0xFF else { throw .malformed("the JPEG header is damaged") }
            let marker = bytes[position + 1]
            if marker == 0xFF {
                position += 1
                continue
            }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 {
                position += 2
                continue
            }
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            guard length >= 2, position + 2 + length <= bytes.count else { throw .malformed("the JPEG header is incomplete") }
            let segment = bytes[(position + 4)..<(position + 2 + length)]
            switch marker {
            case 0xE1:
                if let found = exifOrientation(Array(segment)) { orientation = found }
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                // Start of frame: precision, height, width.
                guard segment.count >= 5 else { throw .malformed("the JPEG frame header is incomplete") }
                let s = segment.startIndex
                let height = Int(segment[s + 1]) << 8 | Int(segment[s + 2])
                let width = Int(segment[s + 3]) << 8 | Int(segment[s + 4])
                guard width > 0, height > 0 else { throw .malformed("the JPEG gives no size") }
                return ImageProbe(format: .jpeg, width: width, height: height, orientation: orientation)
            case 0xDA, 0xD9:
                throw .malformed("the JPEG has no frame header")
            default:
                break
            }
            position += 2 + length
        }
        throw .malformed("the JPEG header is incomplete")
    }

    /// The Orientation tag of IFD0 in an APP1 "Exif" segment.
    static func exifOrientation(_ segment: [UInt8]) -> Orientation? {
        guard segment.count >= 14, segment.starts(with: Array("Exif\0\0".utf8)) else { return nil }
        let tiff = Array(segment[6...])
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112, let value = u16(at + 8) { return Orientation(rawValue: value) }
        }
        return nil
    }

    static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
