import Foundation

/// What a player says of themselves for the games they join — a level per sport and,
/// if they wish, their gender. No route shows either to anyone else; games that ask
/// for a level range or an audience read them when someone joins, and people nearby
/// can be filtered by level (someone may find them among "padel, 3 to 4"), never by
/// gender.
struct Players: Sendable {
    let store: PlayerStore
    let accounts: AccountStore
    let sports: SportCatalog
    let write: Writer
    let clock: any AppClock

    /// `{gender?, levels?}`: a gender (`woman`, `man`, null to say none); levels by sport
    /// (a number 0 to 7 in half steps, null to forget one), merged into those kept.
    struct Input: Decodable, Sendable {
        var gender: Patch<String> = .absent
        var levels: Patch<[String: Double?]> = .absent

        enum CodingKeys: String, CodingKey { case gender, levels }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            gender = try c.patch(.gender)
            levels = try c.patch(.levels)
        }
    }

    func profile(of user: UUID) async throws -> PlayerProfile {
        guard let profile = try await store.profile(of: user) else { throw DomainError.notFound(.user) }
        return profile
    }

    func update(_ user: UUID, _ input: Input) async throws -> PlayerProfile {
        var v = Validator()
        var gender: Gender??
        switch input.gender {
        case .value(let text):
            if let chosen = Gender(rawValue: text) {
                gender = .some(chosen)
            } else {
                v.fail("gender", Sentence("must be woman, man or null"))
            }
        case .null: gender = .some(nil)
        case .absent: gender = nil
        }
        var levels: [(String, Level?)] = []
        if case .null = input.levels { v.fail("levels", Sentence("must be an object of levels by sport (null forgets one sport's level)")) }
        if case .value(let given) = input.levels {
            if given.count > 64 { v.fail("levels", Sentence("must rate at most 64 sports")) }
            for (slug, number) in given.sorted(by: { $0.key < $1.key }) {
                guard sports[slug] != nil else {
                    v.fail("levels", Sentence("unknown sport '\(slug.prefix(64))'"))
                    break
                }
                if let number {
                    guard let level = Level(number) else {
                        v.fail("levels.\(slug.prefix(64))", Sentence("must be 0 to 7 in half steps, such as 3.5"))
                        break
                    }
                    levels.append((slug, level))
                } else {
                    levels.append((slug, nil))
                }
            }
        }
        try v.throwIfInvalid()
        let now = clock.now()
        return try await write { [store, accounts, gender, levels] sql, changes in
            if let gender { try await store.setGender(gender, of: user, on: sql) }
            for (slug, level) in levels { try await store.setLevel(level, in: slug, of: user, on: sql) }
            guard let profile = try await store.profile(of: user, on: sql) else { throw DomainError.notFound(.user) }
            if !levels.isEmpty {
                // The people index files them under their levels.
                try await store.touch(user, at: now, on: sql)
                if let row = try await accounts.user(user, on: sql) { changes.profile(row) }
            }
            return profile
        }
    }
}
