import Foundation

/// Latencies of one scenario, in seconds.
struct Samples {
    private(set) var values: [Double] = []
    var extra: [Double] = []

    mutating func add(_ seconds: Double) { values.append(seconds) }

    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let index = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[index]
    }

    var mean: Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
    var total: Double { values.reduce(0, +) }
    var count: Int { values.count }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// `123 µs`, `4.5 ms`.
func formatLatency(_ s: Double) -> String {
    if s < 1e-3 { return String(format: "%.1f µs", s * 1e6) }
    if s < 1 { return String(format: "%.2f ms", s * 1e3) }
    return String(format: "%.2f s", s)
}

func formatRate(_ perSecond: Double) -> String {
    perSecond >= 10_000 ? String(format: "%.0f", perSecond) : String(format: "%.1f", perSecond)
}

/// Resident memory of a process, from /proc.
func residentMegabytes(pid: Int32) -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kb = Double(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "")
    else { return nil }
    return kb / 1024
}

/// Appends `line` to the CSV file at `path`, writing `header` first when the file is new
/// (rows for Benchmarks/plot_capacity.py); nothing without a path.
func appendCSV(_ path: String?, header: String, line: String) throws {
    guard let path else { return }
    if !FileManager.default.fileExists(atPath: path) {
        FileManager.default.createFile(atPath: path, contents: Data((header + "\n").utf8))
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: Data((line + "\n").utf8))
}
