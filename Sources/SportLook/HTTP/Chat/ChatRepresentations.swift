import Foundation

/// A chat message as clients see it, in its current state.
struct ChatMessageRepresentation: JSONEncodable {
    var message: ChatMessage
    var links: MediaLinks

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", message.id)
        json.field("room_id", message.roomID)
        json.key("event_id")
        if let event = message.eventID { json.value(event) } else { json.null() }
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
        json.key("reply_to")
        if let reply = message.replyTo {
            json.objectStart()
            json.field("seq", Int(reply.seq))
            json.key("sender")
            UserSummaryRepresentation(id: reply.sender.id, name: reply.sender.name).encode(to: &json)
            json.field("preview", reply.preview)
            json.field("deleted", reply.deleted)
            json.objectEnd()
        } else {
            json.null()
        }
        json.key("mentions")
        json.arrayStart()
        for user in message.mentions { json.value(user) }
        json.arrayEnd()
        json.key("reactions")
        json.arrayStart()
        for reaction in message.reactions {
            json.objectStart()
            json.field("emoji", reaction.emoji)
            json.field("count", reaction.users.count)
            json.key("user_ids")
            json.arrayStart()
            for user in reaction.users { json.value(user) }
            json.arrayEnd()
            json.objectEnd()
        }
        json.arrayEnd()
        json.field("change_seq", Int(message.changeSeq))
        json.field("edited_at", message.editedAt)
        json.field("deleted", message.deletedAt != nil)
        json.field("deleted_at", message.deletedAt)
        json.key("poll")
        if let poll = message.poll { PollRepresentation(poll: poll).encode(to: &json) } else { json.null() }
        json.objectEnd()
    }
}

/// A poll as its viewer sees it (``Blocks/view(_:hiding:viewer:)``): counts, and who
/// chose what unless it is anonymous.
struct PollRepresentation: JSONEncodable {
    var poll: ChatPoll

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("kind", poll.kind.rawValue)
        json.field("multiple", poll.multiple)
        json.field("anonymous", poll.anonymous)
        json.field("one_per_option", poll.onePerOption)
        json.field("closes_at", poll.closesAt)
        json.field("closed", poll.closedAt != nil)
        json.field("closed_at", poll.closedAt)
        json.key("options")
        json.arrayStart()
        for (position, option) in poll.options.enumerated() {
            json.objectStart()
            json.field("position", position)
            json.field("label", option.label)
            json.field("starts_at", option.startsAt)
            json.field("ends_at", option.endsAt)
            json.field("count", poll.count(position))
            json.key("user_ids")
            json.arrayStart()
            if !poll.anonymous { for user in option.voters.prefix(ChatPoll.votersShown) { json.value(user) } }
            json.arrayEnd()
            json.objectEnd()
        }
        json.arrayEnd()
        json.field("voters_count", poll.votersCount)
        json.key("my_votes")
        json.arrayStart()
        for position in poll.mine { json.value(position) }
        json.arrayEnd()
        json.key("event_id")
        if let event = poll.eventID { json.value(event) } else { json.null() }
        json.key("series_id")
        if let series = poll.seriesID { json.value(series) } else { json.null() }
        json.objectEnd()
    }
}

/// A conversation as one of its two people sees it.
struct ConversationRepresentation: JSONEncodable {
    var conversation: Conversation
    var viewer: UUID

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", conversation.roomID)
        json.field("room_id", conversation.roomID)
        json.key("with")
        let other = conversation.other(than: viewer) ?? conversation.people[0]
        UserSummaryRepresentation(id: other.id, name: other.name).encode(to: &json)
        json.field("state", conversation.state.rawValue)
        json.key("requested_by")
        if let asker = conversation.requestedBy { json.value(asker) } else { json.null() }
        // Whether the viewer may send a message now (blocking aside).
        json.field("can_send", conversation.maySend(viewer))
        json.field("shares_event", conversation.sharesAnEvent)
        json.field("created_at", conversation.createdAt)
        json.objectEnd()
    }
}

/// One entry of a member's chats list.
struct RoomListingRepresentation: JSONEncodable {
    var listing: RoomListing
    var viewer: UUID
    var links: MediaLinks
    var now: Date

    func encode(to json: inout JSONWriter) {
        let room = listing.room
        json.objectStart()
        json.field("id", room.id)
        json.field("kind", room.kind.rawValue)
        json.key("title")
        if let event = listing.event {
            json.value(event.title)
        } else if let group = listing.group {
            json.value(group.name)
        } else {
            json.value(listing.conversation?.other(than: viewer)?.name ?? "")
        }
        json.key("event")
        if let event = listing.event {
            json.objectStart()
            json.field("id", event.id)
            json.field("title", event.title)
            json.field("starts_at", event.startsAt)
            json.field("status", event.status.rawValue)
            json.objectEnd()
        } else {
            json.null()
        }
        json.key("group")
        if let group = listing.group {
            json.objectStart()
            json.field("id", group.id)
            json.field("name", group.name)
            json.objectEnd()
        } else {
            json.null()
        }
        json.key("conversation")
        if let conversation = listing.conversation {
            ConversationRepresentation(conversation: conversation, viewer: viewer).encode(to: &json)
        } else {
            json.null()
        }
        json.field("last_seq", Int(room.lastMessageSeq))
        json.field("last_change_seq", Int(room.lastChangeSeq))
        json.field("last_read_seq", Int(listing.lastReadSeq))
        json.field("unread_count", listing.unreadCount)
        json.field("last_activity_at", room.lastActivityAt)
        json.key("last_message")
        if let last = listing.lastMessage {
            ChatMessageRepresentation(message: last, links: links).encode(to: &json)
        } else {
            json.null()
        }
        let muted = listing.mutedUntil.map { $0 > now } ?? false
        json.field("muted", muted)
        json.field("muted_until", muted && listing.mutedUntil != RoomService.indefinitely ? listing.mutedUntil : nil)
        json.objectEnd()
    }
}
