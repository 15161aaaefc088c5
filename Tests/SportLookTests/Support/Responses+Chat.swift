import Foundation
import SportLookAPI

@testable import SportLook

/// Chat, people, safety and media as the tests read them (socket frames: `Responses+Frames.swift`).
extension API {
    /// A chat message (`components/schemas/ChatMessage`): its image and its poll are in
    /// the contract's nullable wrappers (`attachment?.value1`, `poll?.value1`).
    typealias ChatMessage = Components.Schemas.ChatMessage
    /// An entry of `GET /v1/me/rooms` (`components/schemas/RoomListing`).
    typealias RoomEntry = Components.Schemas.RoomListing

    /// `GET /v1/me/blocks`' items and a report's answer: the contract's own types.
    typealias Blocked = Components.Schemas.Blocked
    typealias Report = Components.Schemas.Report

    /// `POST /v1/media` and `GET /v1/media/{id}`: the contract's own type.
    typealias Media = Components.Schemas.Media

    /// `GET /ready`: the body of the contract's `Readiness` response.
    typealias Readiness = Components.Responses.Readiness.Body.JsonPayload
}
