import Foundation

/// Splitting the people going into 2–4 teams, as pure arithmetic.
///
/// A split is judged by three figures, in this order (``Cost``): team sizes may differ by
/// at most one (by how much more they differ), the fewest players moved from the team
/// they were on (only when rebalancing published teams), and the smallest gap between
/// the strongest and the weakest team's summed strength. A player fixed to a team (a
/// keeper) is never moved. Up to ``exactLimit`` players to place, every split is
/// searched (with bounds that only cut what cannot win); above it, a greedy split
/// improved by swaps — what a property test compares with brute force on small inputs.
enum TeamSplit {
    struct Player: Sendable, Hashable {
        var id: UUID
        /// Level in hundredths (0…700), corrected by results.
        var strength: Int
        /// The team the organiser fixed them to.
        var fixed: Int? = nil
        /// The team they are on now (rebalancing); nil for someone new.
        var current: Int? = nil
    }

    struct Cost: Comparable, Sendable, CustomStringConvertible {
        /// How much more than one the largest and smallest team differ in size.
        var sizeExcess: Int
        /// Players moved from the team they were on.
        var moves: Int
        /// The strongest team's summed strength less the weakest's.
        var gap: Int

        static func < (a: Cost, b: Cost) -> Bool { (a.sizeExcess, a.moves, a.gap) < (b.sizeExcess, b.moves, b.gap) }
        var description: String { "(size excess \(sizeExcess), moves \(moves), gap \(gap))" }
    }

    /// Above this many players to place, the split is greedy and improved by swaps.
    static let exactLimit = 12
    /// Up to this many players a greedy split is improved by swaps, at most ``maxSwaps``.
    static let swapLimit = 80
    static let maxSwaps = 400

    static func cost(_ teamOf: [Int], _ players: [Player], teams: Int) -> Cost {
        var sizes = [Int](repeating: 0, count: teams)
        var sums = [Int](repeating: 0, count: teams)
        var moves = 0
        for (i, p) in players.enumerated() {
            sizes[teamOf[i]] += 1
            sums[teamOf[i]] += p.strength
            if let current = p.current, current != teamOf[i] { moves += 1 }
        }
        return Cost(
            sizeExcess: max(0, sizes.max()! - sizes.min()! - 1), moves: moves, gap: sums.max()! - sums.min()!)
    }

    /// The best split found: each player's team, in `players`' order.
    static func split(_ players: [Player], teams: Int) -> [Int] {
        precondition((2...4).contains(teams))
        let free = players.indices.filter { players[$0].fixed == nil }
        return free.count <= exactLimit ? exact(players, teams: teams) : greedy(players, teams: teams)
    }

    /// Everyone not fixed in a random team, sizes differing by at most one.
    static func random(_ players: [Player], teams: Int, using generator: inout some RandomNumberGenerator) -> [Int] {
        var teamOf = players.map { $0.fixed ?? -1 }
        var sizes = [Int](repeating: 0, count: teams)
        for t in teamOf where t >= 0 { sizes[t] += 1 }
        for i in players.indices.filter({ teamOf[$0] < 0 }).shuffled(using: &generator) {
            let smallest = sizes.min()!
            let team = sizes.indices.filter { sizes[$0] == smallest }.randomElement(using: &generator)!
            teamOf[i] = team
            sizes[team] += 1
        }
        return teamOf
    }

    // MARK: - Every split, bounded

    private static func exact(_ players: [Player], teams: Int) -> [Int] {
        var teamOf = players.map { $0.fixed ?? -1 }
        var sizes = [Int](repeating: 0, count: teams)
        var sums = [Int](repeating: 0, count: teams)
        for (i, p) in players.enumerated() where p.fixed != nil {
            sizes[teamOf[i]] += 1
            sums[teamOf[i]] += p.strength
        }
        // Strongest first: the sums settle early and the bounds cut sooner.
        let order = players.indices.filter { players[$0].fixed == nil }.sorted {
            (players[$0].strength, players[$1].id.uuidString) > (players[$1].strength, players[$0].id.uuidString)
        }
        var remaining = [Int](repeating: 0, count: order.count + 1)
        for k in stride(from: order.count - 1, through: 0, by: -1) { remaining[k] = remaining[k + 1] + players[order[k]].strength }
        // A team nobody is fixed to or on now is like every other such team while empty.
        var anchored = [Bool](repeating: false, count: teams)
        for p in players { if let t = p.fixed ?? p.current { anchored[t] = true } }

        var best = greedy(players, teams: teams)
        var bestCost = cost(best, players, teams: teams)

        func search(_ k: Int, _ moves: Int) {
            if k == order.count {
                let c = Cost(sizeExcess: max(0, sizes.max()! - sizes.min()! - 1), moves: moves, gap: sums.max()! - sums.min()!)
                if c < bestCost {
                    bestCost = c
                    best = teamOf
                }
                return
            }
            let bound = Cost(
                sizeExcess: fewestExcess(sizes, adding: order.count - k), moves: moves,
                gap: max(0, sums.max()! - sums.min()! - remaining[k]))
            guard bound < bestCost else { return }
            let i = order[k]
            var triedPristine = false
            for t in candidates(players[i], sums: sums) {
                if !anchored[t] && sizes[t] == 0 {
                    if triedPristine { continue }
                    triedPristine = true
                }
                teamOf[i] = t
                sizes[t] += 1
                sums[t] += players[i].strength
                let moved = players[i].current.map { $0 != t ? 1 : 0 } ?? 0
                search(k + 1, moves + moved)
                sizes[t] -= 1
                sums[t] -= players[i].strength
            }
            teamOf[i] = -1
        }
        search(0, 0)
        return best
    }

    /// The player's own team first, then the weakest: good splits are found early.
    private static func candidates(_ player: Player, sums: [Int]) -> [Int] {
        var teams = sums.indices.sorted { (sums[$0], $0) < (sums[$1], $1) }
        if let current = player.current, let at = teams.firstIndex(of: current) {
            teams.remove(at: at)
            teams.insert(current, at: 0)
        }
        return teams
    }

    /// The least size excess reachable by adding `count` players to teams of `sizes`.
    private static func fewestExcess(_ sizes: [Int], adding count: Int) -> Int {
        var sizes = sizes
        for _ in 0..<count { sizes[sizes.indices.min { sizes[$0] < sizes[$1] }!] += 1 }
        return max(0, sizes.max()! - sizes.min()! - 1)
    }

    // MARK: - Greedy, improved by swaps

    private static func greedy(_ players: [Player], teams: Int) -> [Int] {
        var teamOf = players.map { $0.fixed ?? -1 }
        var sizes = [Int](repeating: 0, count: teams)
        var sums = [Int](repeating: 0, count: teams)
        func put(_ i: Int, _ t: Int) {
            teamOf[i] = t
            sizes[t] += 1
            sums[t] += players[i].strength
        }
        func take(_ i: Int) {
            sizes[teamOf[i]] -= 1
            sums[teamOf[i]] -= players[i].strength
            teamOf[i] = -1
        }
        for (i, p) in players.enumerated() {
            if let t = p.fixed ?? p.current { put(i, t) }
        }
        // Newcomers, strongest first, each to the weakest of the smallest teams.
        let newcomers = players.indices.filter { teamOf[$0] < 0 }.sorted { players[$0].strength > players[$1].strength }
        for i in newcomers {
            let smallest = sizes.min()!
            put(i, sizes.indices.filter { sizes[$0] == smallest }.min { (sums[$0], $0) < (sums[$1], $1) }!)
        }
        // Sizes evened by the fewest moves: each from a largest team to a smallest, the
        // player whose move leaves the smallest gap.
        while sizes.max()! - sizes.min()! > 1 {
            let from = sizes.indices.filter { sizes[$0] == sizes.max()! }
            let to = sizes.indices.filter { sizes[$0] == sizes.min()! }
            var choice: (gap: Int, player: Int, team: Int)?
            for i in players.indices where players[i].fixed == nil && from.contains(teamOf[i]) {
                for t in to {
                    var s = sums
                    s[teamOf[i]] -= players[i].strength
                    s[t] += players[i].strength
                    let gap = s.max()! - s.min()!
                    if choice == nil || gap < choice!.gap { choice = (gap, i, t) }
                }
            }
            guard let choice else { break }
            take(choice.player)
            put(choice.player, choice.team)
        }
        // A fresh split (nobody but fixed players on a team yet) is improved by swaps; a
        // rebalance keeps to its fewest moves.
        guard players.allSatisfy({ $0.current == nil || $0.fixed != nil }) else { return teamOf }
        // Each pass looks at every pair: bounded, so that a game of hundreds stays quick
        // inside the write that holds its event (the greedy split is close already).
        var improved = players.count <= swapLimit
        var passes = 0
        while improved && passes < maxSwaps {
            passes += 1
            improved = false
            let gap = sums.max()! - sums.min()!
            let spread = sums.reduce(0) { $0 + $1 * $1 }
            search: for a in players.indices where players[a].fixed == nil {
                for b in players.indices where b > a && players[b].fixed == nil && teamOf[b] != teamOf[a] {
                    let d = players[a].strength - players[b].strength
                    guard d != 0 else { continue }
                    var s = sums
                    s[teamOf[a]] -= d
                    s[teamOf[b]] += d
                    let newGap = s.max()! - s.min()!
                    let newSpread = s.reduce(0) { $0 + $1 * $1 }
                    if (newGap, newSpread) < (gap, spread) {
                        let (ta, tb) = (teamOf[a], teamOf[b])
                        take(a)
                        take(b)
                        put(a, tb)
                        put(b, ta)
                        improved = true
                        break search
                    }
                }
            }
        }
        return teamOf
    }
}
