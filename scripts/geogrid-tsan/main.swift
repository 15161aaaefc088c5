// Concurrent readers and writers on one GeoGrid, built with ThreadSanitizer by
// scripts/geogrid-tsan/run. Exits non-zero if a reader ever sees part of a batch;
// TSan stops it on any data race.
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

let west = GeoPoint(latitude: 45, longitude: 5)!
let east = GeoPoint(latitude: 45, longitude: 6.2)!
let middle = GeoPoint(latitude: 45, longitude: 5.6)!
let count = 800
func batch(at place: GeoPoint, generation: Int) -> [GeoChange] {
    (0..<count).map { i in
        let p = GeoPoint(latitudeE7: place.latitudeE7 + Int32(i % 40) * 1_000, longitudeE7: place.longitudeE7 + Int32(i / 40) * 1_000)
        return .upsert(GeoEntry(key: GeoKey(i), point: p, tags: GeoTags(mask: 1, time: Int64(generation))))
    }
}
let grid = GeoGrid(cellSize: 1_000)
grid.apply(batch(at: west, generation: 0))
let group = DispatchGroup()
let torn = Mutex<[Int]>([0, 0, 0, 0])
DispatchQueue.global().async(group: group) {
    for generation in 1...400 {
        grid.apply(batch(at: generation % 2 == 0 ? west : east, generation: generation))
        if generation % 50 == 0 { grid.compact() }
        if generation % 7 == 0 {
            grid.upsert(GeoEntry(key: GeoKey(100_000 + generation), point: middle))
            grid.remove(GeoKey(100_000 + generation))
        }
    }
}
for reader in 0..<4 {
    DispatchQueue.global().async(group: group) {
        for _ in 0..<300 {
            let hits = grid.search(within: 80_000, of: middle).filter { $0.entry.key < GeoKey(100_000) }
            let generations = Set(hits.map(\.entry.tags.time))
            if hits.count != count || generations.count != 1 { torn.withLock { $0[reader] += 1 } }
            _ = grid.search(within: 80_000, of: middle, limit: 10)
            _ = grid[GeoKey(reader)]
            _ = grid.statistics
        }
    }
}
group.wait()
let total = torn.withLock { $0.reduce(0, +) }
print("geogrid-tsan: \(total) torn reads, \(grid.count) entries, \(grid.statistics)")
exit(total == 0 ? 0 : 1)
