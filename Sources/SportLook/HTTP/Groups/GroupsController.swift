import Foundation
import GeoGrid
import Hummingbird

/// Groups: the group, membership by its policy, admins' work (requests, removals,
/// bans, roles, the invite link) and the caller's groups.
struct GroupsController {
    let groups: GroupService
    let sports: SportCatalog
    let links: MediaLinks

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.post("/v1/groups", use: createGroup)
        routes.get("/v1/me/groups", use: myGroups)
        routes.get("/v1/groups/nearby", use: groupsNearby)
        routes.get("/v1/groups/:id", use: getGroup)
        routes.patch("/v1/groups/:id", use: updateGroup)
        routes.delete("/v1/groups/:id", use: deleteGroup)
        routes.post("/v1/groups/:id/membership", use: join)
        routes.delete("/v1/groups/:id/membership", use: leave)
        routes.get("/v1/groups/:id/members", use: listMembers)
        routes.patch("/v1/groups/:id/members/:user_id", use: setRole)
        routes.delete("/v1/groups/:id/members/:user_id", use: removeMember)
        routes.get("/v1/groups/:id/requests", use: listRequests)
        routes.post("/v1/groups/:id/requests/:user_id", use: acceptRequest)
        routes.delete("/v1/groups/:id/requests/:user_id", use: refuseRequest)
        routes.get("/v1/groups/:id/bans", use: listBans)
        routes.post("/v1/groups/:id/bans", use: ban)
        routes.delete("/v1/groups/:id/bans/:user_id", use: liftBan)
        routes.post("/v1/groups/:id/owner", use: handOver)
        routes.post("/v1/groups/:id/invite", use: newInvite)
        routes.delete("/v1/groups/:id/invite", use: revokeInvite)
        routes.put("/v1/groups/:id/mute", use: mute)
        routes.delete("/v1/groups/:id/mute", use: unmute)
    }

    /// `{invite?, message?}`: neither may be null.
    struct JoinInput: Decodable, Sendable {
        var invite: Patch<String> = .absent
        var message: Patch<String> = .absent

        enum CodingKeys: String, CodingKey { case invite, message }

        init() {}

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            invite = try c.patch(.invite)
            message = try c.patch(.message)
        }
    }

    struct PersonInput: Decodable, Sendable {
        var userId: String?

        func id() throws -> UUID {
            guard let text = userId else { throw DomainError.validation(["user_id": Sentence("is required")]) }
            guard let id = UUID(text: text) else { throw DomainError.validation(["user_id": Sentence("must be a user id")]) }
            return id
        }
    }

    struct RoleInput: Decodable, Sendable {
        var role: String?
    }
}

/// A group as the caller sees it: `{id, name, description, sports, location, policy,
/// visibility, image_url, image_urls, member_count, owner, dues, created_at, my_role,
/// my_request, muted, distance_m?}`.
struct GroupRepresentation: JSONEncodable {
    var group: Group
    var standing: GroupStanding
    var links: MediaLinks
    /// From the search's centre, for a group found nearby.
    var distance: Double? = nil

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", group.id)
        json.field("name", group.name)
        json.field("description", group.description)
        json.key("sports")
        json.arrayStart()
        for slug in group.sports { json.value(slug) }
        json.arrayEnd()
        json.key("location")
        json.objectStart()
        json.field("lat", group.location.lat)
        json.field("lon", group.location.lon)
        json.objectEnd()
        json.field("policy", group.policy.rawValue)
        json.field("visibility", group.visibility.rawValue)
        links.writeImageFields(group.cover, to: &json)
        json.field("member_count", group.memberCount)
        json.key("owner")
        UserSummaryRepresentation(id: group.owner.id, name: group.owner.name).encode(to: &json)
        DuesJSON.write(group.dues, to: &json)
        json.field("created_at", group.createdAt)
        json.field("my_role", standing.role?.rawValue)
        json.field("my_request", standing.requested)
        json.field("muted", standing.muted)
        if let distance { json.field("distance_m", tenths: distance) }
        json.objectEnd()
    }
}

/// `{user, role, joined_at}`.
struct GroupMemberRepresentation: JSONEncodable {
    var member: GroupMember

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("user")
        UserSummaryRepresentation(id: member.user.id, name: member.user.name).encode(to: &json)
        json.field("role", member.role.rawValue)
        json.field("joined_at", member.joinedAt)
        json.objectEnd()
    }
}

/// `{user, message, created_at}`.
struct GroupRequestRepresentation: JSONEncodable {
    var request: GroupRequest

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("user")
        UserSummaryRepresentation(id: request.user.id, name: request.user.name).encode(to: &json)
        json.field("message", request.message)
        json.field("created_at", request.createdAt)
        json.objectEnd()
    }
}

// MARK: Handlers

extension GroupsController {
    /// `POST /v1/groups`
    @Sendable func createGroup(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(GroupService.Input.self, from: request, context: context)
        let group = try await groups.create(by: context.userID, input)
        return JSONResponse(
            status: .created, GroupRepresentation(group: group, standing: GroupStanding(role: .owner), links: links),
            headers: [.location: "/v1/groups/\(group.id.lowercased)"])
    }

    /// `GET /v1/groups/nearby`: listed groups, nearest first, each with `distance_m`.
    @Sendable func groupsNearby(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let lat = q.double("lat", in: -90...90, required: true)
        let lon = q.double("lon", in: -180...180, required: true)
        let radius = q.double("radius_km", in: 0...100) ?? 10
        var sport: String?
        if let slug = q.raw("sport") {
            if sports[slug] == nil { q.validator.fail("sport", Sentence("unknown sport")) } else { sport = slug }
        }
        let minMembers = q.int("min_members", in: 1...1_000_000)
        let limit = q.limit(default: 20, max: 100)
        let cursor = q.cursor(EventSearch.DistanceCursor.self)
        try q.throwIfInvalid()
        guard let lat, let lon, let center = GeoPoint(latitude: lat, longitude: lon) else {
            throw DomainError.invalidParameter("lat", Sentence("is required"))
        }
        let page = try await groups.nearby(
            for: context.userID, center: center, metres: radius * 1_000, sport: sport, minMembers: minMembers, limit: limit, cursor: cursor)
        return JSONResponse(page.map { GroupRepresentation(group: $0.group, standing: $0.standing, links: links, distance: $0.distance) })
    }

    /// `GET /v1/groups/{id}`
    @Sendable func getGroup(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (group, standing) = try await groups.group(try context.uuid("id", .group), for: context.userID)
        return JSONResponse(GroupRepresentation(group: group, standing: standing, links: links))
    }

    /// `PUT /v1/groups/{id}/mute`: no news of the group's new events (a member's choice).
    @Sendable func mute(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await groups.setMuted(true, group: try context.uuid("id", .group), by: context.userID)
        return Response(status: .noContent)
    }

    /// `DELETE /v1/groups/{id}/mute`
    @Sendable func unmute(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await groups.setMuted(false, group: try context.uuid("id", .group), by: context.userID)
        return Response(status: .noContent)
    }

    /// `PATCH /v1/groups/{id}`
    @Sendable func updateGroup(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .group)
        let input = try await RequestBody.decode(GroupService.Input.self, from: request, context: context)
        _ = try await groups.update(id, by: context.userID, input)
        let (group, standing) = try await groups.group(id, for: context.userID)
        return JSONResponse(GroupRepresentation(group: group, standing: standing, links: links))
    }

    /// `DELETE /v1/groups/{id}`
    @Sendable func deleteGroup(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await groups.delete(try context.uuid("id", .group), by: context.userID)
        return Response(status: .noContent)
    }

    /// `POST /v1/groups/{id}/membership`: `{status: member | requested}`.
    @Sendable func join(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .group)
        let input = try await RequestBody.decodeIfPresent(JoinInput.self, from: request, context: context) ?? JoinInput()
        var v = Validator()
        let invite = v.nonNull(input.invite, "invite")
        let message = v.nonNull(input.message, "message")
        try v.throwIfInvalid()
        let joined = try await groups.join(id, by: context.userID, invite: invite, message: message)
        return JSONResponse(JoinedGroupRepresentation(status: joined))
    }

    /// `DELETE /v1/groups/{id}/membership`: leaves, or takes back a request to join.
    @Sendable func leave(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await groups.leave(try context.uuid("id", .group), by: context.userID)
        return Response(status: .noContent)
    }

    /// `GET /v1/groups/{id}/members`
    @Sendable func listMembers(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .group)
        var q = QueryReader(request)
        let limit = q.limit(default: 50, max: 100)
        let cursor = q.cursor(MemberCursor.self)
        try q.throwIfInvalid()
        return JSONResponse(
            try await groups.members(id, for: context.userID, cursor: cursor, limit: limit).map { GroupMemberRepresentation(member: $0) })
    }

    /// `PATCH /v1/groups/{id}/members/{user_id}` `{role: admin | member}`
    @Sendable func setRole(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .group)
        let person = try context.uuid("user_id", .member)
        let input = try await RequestBody.decode(RoleInput.self, from: request, context: context)
        guard let text = input.role, let role = GroupRole(rawValue: text), role != .owner else {
            throw DomainError.validation(["role": Sentence("must be admin or member")])
        }
        try await groups.setRole(id, member: person, role: role, by: context.userID)
        return Response(status: .noContent)
    }

    /// `DELETE /v1/groups/{id}/members/{user_id}`
    @Sendable func removeMember(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await groups.remove(
            try context.uuid("id", .group), member: try context.uuid("user_id", .member), ban: false, by: context.userID)
        return Response(status: .noContent)
    }

    /// `GET /v1/groups/{id}/requests`
    @Sendable func listRequests(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .group)
        var q = QueryReader(request)
        let limit = q.limit(default: 50, max: 100)
        let cursor = q.cursor(TimeCursor.self)
        try q.throwIfInvalid()
        return JSONResponse(
            try await groups.requests(id, for: context.userID, cursor: cursor, limit: limit).map { GroupRequestRepresentation(request: $0) }
        )
    }

    /// `POST /v1/groups/{id}/requests/{user_id}`: accepts.
    @Sendable func acceptRequest(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await groups.answer(
            try context.uuid("id", .group), request: try context.uuid("user_id", .request), accept: true, by: context.userID)
        return Response(status: .noContent)
    }

    /// `DELETE /v1/groups/{id}/requests/{user_id}`: refuses.
    @Sendable func refuseRequest(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await groups.answer(
            try context.uuid("id", .group), request: try context.uuid("user_id", .request), accept: false, by: context.userID)
        return Response(status: .noContent)
    }

    /// `GET /v1/groups/{id}/bans`
    @Sendable func listBans(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .group)
        var q = QueryReader(request)
        let limit = q.limit(default: 50, max: 100)
        let cursor = q.cursor(TimeCursor.self)
        try q.throwIfInvalid()
        return JSONResponse(try await groups.bans(id, for: context.userID, cursor: cursor, limit: limit).map { BanRepresentation(ban: $0) })
    }

    /// `POST /v1/groups/{id}/bans` `{user_id}`: removes them if a member and keeps them out.
    @Sendable func ban(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .group)
        let person = try await RequestBody.decode(PersonInput.self, from: request, context: context).id()
        try await groups.remove(id, member: person, ban: true, by: context.userID)
        return Response(status: .noContent)
    }

    /// `DELETE /v1/groups/{id}/bans/{user_id}`
    @Sendable func liftBan(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await groups.unban(try context.uuid("id", .group), user: try context.uuid("user_id", .ban), by: context.userID)
        return Response(status: .noContent)
    }

    /// `POST /v1/groups/{id}/owner` `{user_id}`: the owner hands the group over.
    @Sendable func handOver(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .group)
        let person = try await RequestBody.decode(PersonInput.self, from: request, context: context).id()
        _ = try await groups.handOver(id, to: person, by: context.userID)
        let (group, standing) = try await groups.group(id, for: context.userID)
        return JSONResponse(GroupRepresentation(group: group, standing: standing, links: links))
    }

    /// `POST /v1/groups/{id}/invite`: `{invite}`, a new secret (the old one stops working).
    @Sendable func newInvite(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let secret = try await groups.newInvite(try context.uuid("id", .group), by: context.userID)
        return JSONResponse(status: .created, InviteRepresentation(invite: secret))
    }

    /// `DELETE /v1/groups/{id}/invite`
    @Sendable func revokeInvite(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await groups.revokeInvite(try context.uuid("id", .group), by: context.userID)
        return Response(status: .noContent)
    }

    /// `GET /v1/me/groups`: `{group, role}` items, those joined last first.
    @Sendable func myGroups(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let limit = q.limit(default: 50, max: 100)
        let cursor = q.cursor(TimeCursor.self)
        try q.throwIfInvalid()
        return JSONResponse(
            try await groups.myGroups(context.userID, cursor: cursor, limit: limit).map {
                GroupRepresentation(group: $0.0, standing: GroupStanding(role: $0.1), links: links)
            })
    }
}

/// `{status}` after asking to join.
struct JoinedGroupRepresentation: JSONEncodable {
    var status: GroupService.Joined

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("status", status.rawValue)
        json.objectEnd()
    }
}

/// `{invite}`: the invite secret, shown once.
struct InviteRepresentation: JSONEncodable {
    var invite: String

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("invite", invite)
        json.objectEnd()
    }
}
