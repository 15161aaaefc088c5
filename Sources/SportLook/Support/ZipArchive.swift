import Foundation

/// A ZIP archive of stored (uncompressed) files, built in memory: what a data export is
/// handed out as, readable by every operating system's own tools. Photos are JPEGs
/// already and JSON is small, so nothing is deflated.
struct ZipArchive {
    private var body: [UInt8] = []
    private var directory: [UInt8] = []
    private var count = 0

    /// Adds a file (`name` with `/` between folders) modified at `date`.
    mutating func add(_ name: String, _ bytes: [UInt8], modified date: Date) {
        let name = Array(name.utf8)
        let crc = Self.crc32(bytes)
        let (time, day) = Self.dosTime(date)
        let offset = UInt32(body.count)
        // Local header: signature, version 2.0, UTF-8 names (bit 11), stored, time, date,
        // CRC, sizes, name length, no extra field.
        var local: [UInt8] = []
        local.append32(0x0403_4b50)
        local.append16(20)
        local.append16(0x0800)
        local.append16(0)
        local.append16(time)
        local.append16(day)
        local.append32(crc)
        local.append32(UInt32(bytes.count))
        local.append32(UInt32(bytes.count))
        local.append16(UInt16(name.count))
        local.append16(0)
        body += local + name + bytes
        var entry: [UInt8] = []
        entry.append32(0x0201_4b50)
        entry.append16(20)
        entry.append16(20)
        entry.append16(0x0800)
        entry.append16(0)
        entry.append16(time)
        entry.append16(day)
        entry.append32(crc)
        entry.append32(UInt32(bytes.count))
        entry.append32(UInt32(bytes.count))
        entry.append16(UInt16(name.count))
        entry.append16(0)  // extra
        entry.append16(0)  // comment
        entry.append16(0)  // disk
        entry.append16(0)  // internal attributes
        entry.append32(0)  // external attributes
        entry.append32(offset)
        directory += entry + name
        count += 1
    }

    /// The archive's bytes: the files, then the central directory and its end.
    var bytes: [UInt8] {
        var end: [UInt8] = []
        end.append32(0x0605_4b50)
        end.append16(0)
        end.append16(0)
        end.append16(UInt16(count))
        end.append16(UInt16(count))
        end.append32(UInt32(directory.count))
        end.append32(UInt32(body.count))
        end.append16(0)
        return body + directory + end
    }

    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 (IEEE), as ZIP and gzip use it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    /// MS-DOS time and date, in UTC.
    private static func dosTime(_ date: Date) -> (UInt16, UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let time = UInt16((c.hour ?? 0) << 11 | (c.minute ?? 0) << 5 | (c.second ?? 0) / 2)
        let day = UInt16(max(0, (c.year ?? 1980) - 1980) << 9 | (c.month ?? 1) << 5 | (c.day ?? 1))
        return (time, day)
    }
}

extension [UInt8] {
    fileprivate mutating func append16(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }

    fileprivate mutating func append32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }
}
