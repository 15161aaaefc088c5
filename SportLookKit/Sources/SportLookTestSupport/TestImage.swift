import Foundation

/// A small PNG made here (stored deflate blocks, no compression library): a gradient, so
/// the server has real pixels to decode and re-encode.
public func pngImage(width: Int = 64, height: Int = 48) -> Data {
    var raw = [UInt8]()
    for y in 0..<height {
        raw.append(0)  // filter: none
        for x in 0..<width { raw += [UInt8(x * 255 / width), UInt8(y * 255 / height), 128] }
    }
    var zlib: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
        let length = min(65_535, raw.count - offset)
        let last: UInt8 = offset + length == raw.count ? 1 : 0
        zlib += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
        zlib += raw[offset..<(offset + length)]
        offset += length
    } while offset < raw.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in raw {
        a = (a + UInt32(byte)) % 65_521
        b = (b + a) % 65_521
    }
    zlib += bigEndian((b << 16) | a)

    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    func chunk(_ type: String, _ data: [UInt8]) {
        let typed = Array(type.utf8) + data
        png += bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }
    chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0])
    chunk("IDAT", zlib)
    chunk("IEND", [])
    return Data(png)
}

private func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
}

private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
