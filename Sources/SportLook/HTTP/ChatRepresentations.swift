import Foundation

/// A chat message as clients see it.
struct ChatMessageRepresentation: JSONEncodable {
    var message: ChatMessage
    var links: MediaLinks

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
        json.key("attachment")
        if let attachment = message.attachment {
            // `{id, width, height, urls: {"2048": URL, "320": URL}, expires_at}`: signed
            // links, good until expires_at (read the history again for fresh ones).
            json.objectStart()
            json.field("id", attachment.image.id)
            json.field("width", attachment.width)
            json.field("height", attachment.height)
            let expires = links.signer.expiry()
            json.key("urls")
            links.writeURLs(attachment.image, expires: expires, to: &json)
            json.field("expires_at", Date(timeIntervalSince1970: TimeInterval(expires)))
            json.objectEnd()
        } else {
            json.null()
        }
        json.objectEnd()
    }
}
