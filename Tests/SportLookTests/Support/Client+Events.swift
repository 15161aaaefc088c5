import Foundation
import HTTPTypes

@testable import SportLook

/// Events and attendance. Each helper fails, with the status and the body, unless
/// the server answers as it should; tests that expect a refusal use the raw ``Reply``.
extension API {
    /// Creates an event starting `startsIn` seconds after `now`.
    @discardableResult
    func createEvent(
        _ token: String, title: String = "Five-a-side", sport: String = "football", lat: Double = 48.8566, lon: Double = 2.3522,
        startsIn: TimeInterval = 86_400, duration: TimeInterval? = nil, capacity: Int? = nil, now: Date
    ) async throws -> Event {
        var body: [String: Any] = [
            "title": title, "sport": sport, "starts_at": RFC3339.format(now.addingTimeInterval(startsIn)),
            "location": ["lat": lat, "lon": lon],
        ]
        if let duration { body["ends_at"] = RFC3339.format(now.addingTimeInterval(startsIn + duration)) }
        if let capacity { body["capacity"] = capacity }
        return try await post("/v1/events", token: token, json: body).decode(expecting: .created)
    }

    /// One event, with the caller's status.
    func event(_ id: String, token: String) async throws -> Event {
        try await get("/v1/events/\(id)", token: token).decode(expecting: .ok)
    }

    /// Joins an event; returns the caller's place.
    @discardableResult
    func join(_ event: String, token: String) async throws -> Joined {
        try await post("/v1/events/\(event)/attendance", token: token).decode(expecting: .ok)
    }
}
