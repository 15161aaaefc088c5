import Foundation

/// An invitation, with its event when listed.
struct InvitationRepresentation: JSONEncodable {
    var invitation: Invitation
    var event: EventRepresentation?
    var attendance: EventService.Joined?

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", invitation.id)
        json.field("event_id", invitation.eventID)
        json.key("inviter")
        UserSummaryRepresentation(id: invitation.inviter.id, name: invitation.inviter.name).encode(to: &json)
        json.key("invitee")
        UserSummaryRepresentation(id: invitation.invitee.id, name: invitation.invitee.name).encode(to: &json)
        json.field("status", invitation.status.rawValue)
        json.field("created_at", invitation.createdAt)
        json.field("responded_at", invitation.respondedAt)
        if let attendance {
            json.key("attendance")
            JoinedRepresentation(joined: attendance).encode(to: &json)
        }
        if let event {
            json.key("event")
            event.encode(to: &json)
        }
        json.objectEnd()
    }
}
