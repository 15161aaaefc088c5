@testable import Imaging

/// Test inputs built here, byte by byte, so each test knows exactly what is in them.
enum TestImages {
    /// A `width` × `height` image whose four quadrants are red (top left), green (top
    /// right), blue (bottom left) and white (bottom right).
    static func quadrants(width: Int, height: Int) -> Pixels {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let colour: (UInt8, UInt8, UInt8) =
                    switch (x < width / 2, y < height / 2) {
                    case (true, true): (255, 0, 0)
                    case (false, true): (0, 255, 0)
                    case (true, false): (0, 0, 255)
                    case (false, false): (255, 255, 255)
                    }
                let at = (y * width + x) * 3
                (bytes[at], bytes[at + 1], bytes[at + 2]) = colour
            }
        }
        return Pixels(width: width, height: height, bytes: bytes)
    }

    static func jpeg(_ pixels: Pixels, quality: Int = 95) throws -> [UInt8] {
        try Codecs.encodeJPEG(pixels, quality: quality)
    }

    /// `jpeg` with an APP1 Exif segment inserted after SOI: IFD0 holds the orientation
    /// and a pointer to a GPS IFD with a latitude; an XMP APP1 and a comment follow.
    static func withMetadata(_ jpeg: [UInt8], orientation: Int) -> [UInt8] {
        // TIFF, big-endian: header, IFD0 at 8 with 2 entries, GPS IFD after it.
        var tiff: [UInt8] = Array("MM".utf8) + [0x00, 0x2A] + be32(8)
        let gpsOffset = 8 + 2 + 2 * 12 + 4
        tiff += be16(2)
        tiff += be16(0x0112) + be16(3) + be32(1) + be16(UInt16(orientation)) + [0, 0]
        tiff += be16(0x8825) + be16(4) + be32(1) + be32(UInt32(gpsOffset))
        tiff += be32(0)
        // GPS IFD: GPSLatitudeRef "N".
        tiff += be16(1)
        tiff += be16(0x0001) + be16(2) + be32(2) + Array("N".utf8) + [0, 0, 0]
        tiff += be32(0)
        let exif = Array("Exif".utf8) + [0, 0] + tiff
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>secret place</x:xmpmeta>".utf8)
        let comment = Array("taken at home".utf8)
        return [0xFF, 0xD8]
            + segment(0xE1, exif) + segment(0xE1, xmp) + segment(0xFE, comment)
            + jpeg.dropFirst(2)
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(UInt16(payload.count + 2)) + payload
    }

    /// The markers of a JPEG up to its first scan.
    static func markers(_ jpeg: [UInt8]) -> [UInt8] {
        var found: [UInt8] = []
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF {
            let marker = jpeg[at + 1]
            found.append(marker)
            if marker == 0xDA { break }
            at += 2 + (Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3]))
        }
        return found
    }

    /// A PNG of RGBA pixels (colour type 6), its image data in stored (uncompressed)
    /// deflate blocks: a valid PNG with no compressor needed.
    static func png(width: Int, height: Int, rgba: [UInt8]) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)  // filter: none
            raw += rgba[(y * width * 4)..<((y + 1) * width * 4)]
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, raw.count - offset)
            let final: UInt8 = offset + length == raw.count ? 1 : 0
            zlib += [final] + le16(UInt16(length)) + le16(~UInt16(length))
            zlib += raw[offset..<(offset + length)]
            offset += length
        } while offset < raw.count
        zlib += be32(adler32(raw))
        return pngSignature + chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 6, 0, 0, 0]) + chunk("IDAT", zlib)
            + chunk("IEND", [])
    }

    /// Only a PNG's signature and header, claiming `width` × `height`.
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        pngSignature + chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0])
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
