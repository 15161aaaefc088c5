import Foundation

/// A chat message as clients see it.
struct ChatMessageRepresentation: JSONEncodable {
    var message: ChatMessage

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", message.id)
        json.field("event_id", message.eventID)
        json.field("seq", Int(message.seq))
        json.key("sender")
        UserSummaryRepresentation(id: message.sender.id, name: message.sender.name).encode(to: &json)
        json.field("body", message.body)
        json.field("client_id", message.clientID)
        json.field("created_at", message.createdAt)
        json.objectEnd()
    }
}
