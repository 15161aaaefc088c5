import Foundation
import HTTPTypes
import SportLookAPI
import Testing

@testable import SportLook

@Suite("Who a game is for: levels, gender, an event's level range and audience", .timeLimit(.minutes(10)))
struct WhoPlaysTests {
    struct Player: Decodable {
        var gender: String?
        var levels: [String: Double]
    }

    static func event(_ api: API, _ token: String, _ extra: [String: Any]) async throws -> Reply {
        var body: [String: Any] = [
            "title": "Padel four", "sport": "padel", "starts_at": RFC3339.format(Date().addingTimeInterval(3 * 86_400)),
            "location": ["lat": 55.6761, "lon": 12.5683],
        ]
        body.merge(extra) { $1 }
        return try await api.post("/v1/events", token: token, json: body)
    }

    @Test("a player rates their sports in half steps from 0 to 7 and may say their gender; nobody else sees either", arguments: engines)
    func playerProfile(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let empty = try await api.get("/v1/me/player", token: ann.token).decode(Player.self, expecting: .ok)
            #expect(empty.gender == nil && empty.levels.isEmpty)
            let set = try await api.patch(
                "/v1/me/player", token: ann.token, json: ["gender": "woman", "levels": ["padel": 3.5, "tennis": 2]]
            ).decode(Player.self, expecting: .ok)
            #expect(set.gender == "woman" && set.levels == ["padel": 3.5, "tennis": 2])
            let merged = try await api.patch("/v1/me/player", token: ann.token, json: ["levels": ["tennis": NSNull(), "squash": 0]]).decode(
                Player.self, expecting: .ok)
            #expect(merged.gender == "woman" && merged.levels == ["padel": 3.5, "squash": 0])
            for bad in [
                ["levels": ["padel": 3.3]], ["levels": ["padel": 7.5]], ["levels": ["curling-on-mars": 1]], ["gender": "other"],
                ["levels": ["padel": -0.5]], ["levels": ["padel": 1e300]], ["levels": ["padel": -1e300]],
            ] as [[String: Any]] {
                #expect(try await api.patch("/v1/me/player", token: ann.token, json: bad).status == .unprocessableContent, "\(bad)")
            }
            #expect(
                try await api.get("/v1/me/player", token: ann.token).decode(Player.self, expecting: .ok).levels == [
                    "padel": 3.5, "squash": 0,
                ])
            // Bo sees neither on Ann's profile.
            let seen = try await api.get("/v1/users/\(ann.id)", token: bo.token).text
            #expect(!seen.contains("woman") && !seen.contains("levels") && !seen.contains("gender"))
            #expect(
                try await api.patch("/v1/me/player", token: ann.token, json: ["gender": NSNull()]).decode(Player.self, expecting: .ok)
                    .gender == nil)
        }
    }

    @Test("a game for a level range and an audience takes only the players it is for, and says why to the others", arguments: engines)
    func levelAndAudience(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let organiser = try await api.register("Org")
            let unrated = try await api.register("Unrated")
            let strong = try await api.register("Strong")
            let ann = try await api.register("Ann")
            let bo = try await api.register("Bo")
            let quiet = try await api.register("Quiet")
            _ = try await api.patch("/v1/me/player", token: strong.token, json: ["gender": "woman", "levels": ["padel": 4.5]]).decode(
                Player.self, expecting: .ok)
            _ = try await api.patch("/v1/me/player", token: ann.token, json: ["gender": "woman", "levels": ["padel": 3]]).decode(
                Player.self, expecting: .ok)
            _ = try await api.patch("/v1/me/player", token: bo.token, json: ["gender": "man", "levels": ["padel": 3]]).decode(
                Player.self, expecting: .ok)
            _ = try await api.patch("/v1/me/player", token: quiet.token, json: ["levels": ["padel": 3]]).decode(Player.self, expecting: .ok)
            let women = try await Self.event(api, organiser.token, ["level": ["min": 2.5, "max": 4], "audience": "women"]).decode(
                API.Event.self, expecting: .created)
            #expect(
                try await api.get("/v1/events/\(women.id)", token: ann.token).text.contains(
                    "\"level\":{\"min\":2.5,\"max\":4.0},\"audience\":\"women\""))
            let refusals: [(String, String, String)] = [
                (unrated.token, "level_required", "set your Padel level"), (strong.token, "level_out_of_range", "yours is 4.5"),
                (bo.token, "audience_only", "for women only"), (quiet.token, "audience_only", "for women only"),
            ]
            for (token, code, words) in refusals {
                // A maybe is held to the same rules as a place.
                for path in ["attendance", "maybe"] {
                    let refused = try await api.post("/v1/events/\(women.id)/\(path)", token: token)
                    #expect(refused.status == .forbidden, "\(path)")
                    #expect(try refused.errorCode == code, "\(path)")
                    #expect(refused.text.contains(words), "\(path): \(refused.text)")
                }
            }
            #expect(try await api.post("/v1/events/\(women.id)/maybe", token: ann.token).status == .ok)
            #expect(try await api.join(women.id, token: ann.token).status == .going)
            // Mixed teams: anyone who said which they play as.
            let mixed = try await Self.event(api, organiser.token, ["audience": "mixed"]).decode(API.Event.self, expecting: .created)
            #expect(try await api.join(mixed.id, token: bo.token).status == .going)
            #expect(try await api.post("/v1/events/\(mixed.id)/attendance", token: quiet.token).status == .forbidden)
            // The organiser may change the range: Strong fits now.
            _ = try await api.patch("/v1/events/\(women.id)", token: organiser.token, json: ["level": ["min": 3, "max": 5]]).decode(
                API.Event.self, expecting: .ok)
            #expect(try await api.join(women.id, token: strong.token).status == .going)
            // Bad ranges and audiences.
            for bad in [
                ["level": ["min": 4, "max": 3]], ["level": ["min": 1, "max": 8]], ["level": ["min": 1.25, "max": 2]], ["audience": "kids"],
                ["level": ["min": 1]], ["level": ["min": 1e300, "max": 1e301]],
            ] as [[String: Any]] {
                #expect(try await Self.event(api, organiser.token, bad).status == .unprocessableContent, "\(bad)")
            }
        }
    }
}
