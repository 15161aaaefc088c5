import Foundation

/// Which room a frame is about: every room frame carries `room_id`, and an
/// event's room also `event_id` (the same id), as clients of event chats expect.
struct RoomAddress: Sendable, Hashable {
    var id: UUID
    var eventID: UUID?

    func write(to json: inout JSONWriter) {
        json.field("room_id", id)
        if let eventID { json.field("event_id", eventID) }
    }
}

/// The JSON frames the server sends on sockets.
enum Frames {
    /// A message, and the change position to resume from once it is received.
    static func message(_ message: ChatMessage, afterChange: Int64, links: MediaLinks) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "message")
        RoomAddress(id: message.roomID, eventID: message.eventID).write(to: &json)
        json.key("message")
        ChatMessageRepresentation(message: message, links: links).encode(to: &json)
        json.field("after_change", Int(afterChange))
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// A message the client holds changed: edited or reacted to (`message_edited`) or
    /// deleted (`message_deleted`); it comes whole, as it is now.
    static func change(_ message: ChatMessage, links: MediaLinks) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", message.deletedAt == nil ? "message_edited" : "message_deleted")
        RoomAddress(id: message.roomID, eventID: message.eventID).write(to: &json)
        json.key("message")
        ChatMessageRepresentation(message: message, links: links).encode(to: &json)
        json.field("after_change", Int(message.changeSeq))
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// Only the votes of a poll the client holds changed (``ChatConnection`` keeps what
    /// each subscription was sent of each poll): its counts, not the message again.
    /// `taken_by` names who took each option of a sign-up list (null elsewhere: who
    /// voted comes with the message).
    static func pollVotes(_ message: ChatMessage) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "poll_votes")
        RoomAddress(id: message.roomID, eventID: message.eventID).write(to: &json)
        json.field("seq", Int(message.seq))
        json.field("after_change", Int(message.changeSeq))
        let poll = message.poll
        json.key("counts")
        json.arrayStart()
        for position in poll?.options.indices ?? 0..<0 { json.value(poll?.count(position) ?? 0) }
        json.arrayEnd()
        json.key("taken_by")
        json.arrayStart()
        for option in poll?.options ?? [] {
            if poll?.onePerOption == true, let taker = option.voters.first { json.value(taker) } else { json.null() }
        }
        json.arrayEnd()
        json.field("voters_count", poll?.votersCount ?? 0)
        json.key("my_votes")
        json.arrayStart()
        for position in poll?.mine ?? [] { json.value(position) }
        json.arrayEnd()
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func typing(room: RoomAddress, user: UUID, name: String) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "typing")
        room.write(to: &json)
        json.key("user")
        UserSummaryRepresentation(id: user, name: name).encode(to: &json)
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func read(room: RoomAddress, user: UUID, seq: Int64) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "read")
        room.write(to: &json)
        json.key("user")
        json.objectStart()
        json.field("id", user)
        json.objectEnd()
        json.field("seq", Int(seq))
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func roomUpdated(_ listing: RoomListing, viewer: UUID, links: MediaLinks, now: Date) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "room_updated")
        json.key("room")
        RoomListingRepresentation(listing: listing, viewer: viewer, links: links, now: now).encode(to: &json)
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func notification(_ item: InboxItem) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "notification")
        json.key("notification")
        NotificationRepresentation(item).encode(to: &json)
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// Whether the database takes writes: sent to every socket when that changes, and to a
    /// new socket while it does not (writes are refused with `read_only` meanwhile).
    static func database(writable: Bool) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "database")
        json.field("writable", writable)
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func simple(_ type: String, room: RoomAddress?, fields: [(String, String)] = [], numbers: [(String, Int)] = []) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", type)
        room?.write(to: &json)
        for (k, v) in fields { json.field(k, v) }
        for (k, v) in numbers { json.field(k, v) }
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func error(_ code: String, _ message: String, room: RoomAddress? = nil, clientID: String? = nil, retryAfter: Int? = nil)
        -> String
    {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "error")
        json.field("code", code)
        json.field("message", message)
        room?.write(to: &json)
        if let clientID { json.field("client_id", clientID) }
        if let retryAfter { json.field("retry_after", retryAfter) }
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }
}
