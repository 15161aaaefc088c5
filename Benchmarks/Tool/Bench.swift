import ArgumentParser
import Foundation
import SportLook

@main
struct SportLookBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sportlook-bench",
        abstract: "SportLook's benchmark harness (see BENCHMARKS.md).",
        subcommands: [
            GeoBench.self, JobsBench.self, ChatBench.self, ChatCapacityBench.self, HTTPCapacityBench.self, SoakBench.self, OutageBench.self,
            LoginBench.self, RemindersBench.self, Centres.self, SubstituteBench.self, PollBench.self,
        ]
    )
}

/// Query centres from the benchmark mix (80% around cities), one `lat lon` per line, for wrk.
struct Centres: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "centres", abstract: "Print query centres for wrk scripts.")
    @Option var count = 2_000
    @Option var seed: UInt64 = 7

    func run() {
        var rng = DemoRandom(seed: seed)
        for _ in 0..<count {
            if Double.random(in: 0..<1, using: &rng) < 0.8 {
                let p = rng.nearCity()
                print(String(format: "%.6f %.6f", p.lat, p.lon))
            } else {
                print(String(format: "%.6f %.6f", Double.random(in: -60...70, using: &rng), Double.random(in: -180...180, using: &rng)))
            }
        }
    }
}
