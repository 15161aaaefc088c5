import Foundation
internal import SportLookAPI

/// Running a group: its details, roles, requests, bans, invite link, owner, mute.
extension SportLookClient.Groups {
    /// Changes what is given; the rest stays (admins).
    @discardableResult
    public func update(_ id: Group.ID, name: String? = nil, description: String? = nil, policy: Group.Policy? = nil, listed: Bool? = nil)
        async throws -> Group
    {
        let changes = Components.Schemas.GroupChanges(
            name: name, description: description, policy: policy.flatMap { .init(rawValue: $0.rawValue) },
            visibility: listed.map { $0 ? .listed : .unlisted })
        return try Group(
            try await client.call { try await $0.updateGroup(path: .init(id: id.description), body: .json(changes)).ok.body.json })
    }

    /// Ends the group (its owner): its coming games are cancelled.
    public func delete(_ id: Group.ID) async throws {
        _ = try await client.call { try await $0.deleteGroup(path: .init(id: id.description)).noContent }
    }

    /// Makes a member an admin, or an admin a member again (the owner).
    public func setRole(of person: Person.ID, in id: Group.ID, admin: Bool) async throws {
        _ = try await client.call {
            try await $0.setGroupRole(
                path: .init(id: id.description, userId: person.description), body: .json(.init(role: admin ? .admin : .member))
            )
            .noContent
        }
    }

    /// Removes a member (admins).
    public func remove(_ person: Person.ID, from id: Group.ID) async throws {
        _ = try await client.call { try await $0.removeGroupMember(path: .init(id: id.description, userId: person.description)).noContent }
    }

    /// The requests to join that wait, page by page (admins).
    public func requests(of id: Group.ID) -> Pages<Person> {
        Pages { cursor in
            let page = try await client.call {
                try await $0.listGroupRequests(path: .init(id: id.description), query: .init(cursor: cursor)).ok.body.json
            }
            return (try page.items.map { try Person($0.user) }, page.nextCursor)
        }
    }

    /// Bans someone: they leave and cannot come back (admins).
    public func ban(_ person: Person.ID, from id: Group.ID) async throws {
        _ = try await client.call {
            try await $0.banFromGroup(path: .init(id: id.description), body: .json(.init(userId: person.description))).noContent
        }
    }

    /// The people banned, page by page.
    public func bans(of id: Group.ID) -> Pages<Person> {
        Pages { cursor in
            let page = try await client.call {
                try await $0.listGroupBans(path: .init(id: id.description), query: .init(cursor: cursor)).ok.body.json
            }
            return (try page.items.map { try Person($0.user) }, page.nextCursor)
        }
    }

    /// Lets a banned person ask to join again.
    public func liftBan(of person: Person.ID, in id: Group.ID) async throws {
        _ = try await client.call { try await $0.liftGroupBan(path: .init(id: id.description, userId: person.description)).noContent }
    }

    /// Hands the group to another member (the owner becomes an admin).
    @discardableResult
    public func handOver(_ id: Group.ID, to person: Person.ID) async throws -> Group {
        try Group(
            try await client.call {
                try await $0.handOverGroup(path: .init(id: id.description), body: .json(.init(userId: person.description))).ok.body.json
            })
    }

    /// A new invite link's code (the last one stops working).
    public func newInviteCode(_ id: Group.ID) async throws -> String {
        try await client.call { try await $0.newGroupInvite(path: .init(id: id.description)).created.body.json.invite }
    }

    /// The invite link stops working.
    public func revokeInviteCode(_ id: Group.ID) async throws {
        _ = try await client.call { try await $0.revokeGroupInvite(path: .init(id: id.description)).noContent }
    }

    /// Silences the group's notifications, or lets them through again.
    public func mute(_ id: Group.ID, _ muted: Bool = true) async throws {
        if muted {
            _ = try await client.call { try await $0.muteGroup(path: .init(id: id.description)).noContent }
        } else {
            _ = try await client.call { try await $0.unmuteGroup(path: .init(id: id.description)).noContent }
        }
    }
}

/// A reaction a message can carry.
public enum Reaction: String, Hashable, Sendable, Codable, CaseIterable {
    /// 👍
    case thumbsUp = "👍"
    /// ❤️
    case heart = "❤️"
    /// 😂
    case laugh = "😂"
    /// 😮
    case wow = "😮"
    /// 😢
    case sad = "😢"
    /// 🎉
    case party = "🎉"
    /// 🔥
    case fire = "🔥"
    /// 🙏
    case thanks = "🙏"
}

/// Polls and reactions in a room.
extension SportLookClient.Chat {
    /// Votes: the positions of the options chosen (none takes the vote back).
    @discardableResult
    public func vote(in room: String, poll seq: Int, for options: [Int]) async throws -> Message {
        try Message(
            try await client.call {
                try await $0.votePoll(path: .init(id: room, seq: seq), body: .json(.init(options: options))).ok.body.json
            })
    }

    /// Closes a poll early (its author).
    @discardableResult
    public func closePoll(in room: String, seq: Int) async throws -> Message {
        try Message(try await client.call { try await $0.closePoll(path: .init(id: room, seq: seq)).ok.body.json })
    }

    /// Puts a reaction on a message (once per person and emoji).
    @discardableResult
    public func react(_ reaction: Reaction, to seq: Int, in room: String) async throws -> Message {
        guard let emoji = Operations.AddReaction.Input.Body.JsonPayload.EmojiPayload(rawValue: reaction.rawValue) else {
            throw SportLookError.malformed("not a reaction of the contract: \(reaction.rawValue)")
        }
        return try Message(
            try await client.call {
                try await $0.addReaction(path: .init(id: room, seq: seq), body: .json(.init(emoji: emoji))).ok.body.json
            })
    }

    /// Takes one's reaction off a message.
    @discardableResult
    public func removeReaction(_ reaction: Reaction, from seq: Int, in room: String) async throws -> Message {
        guard let emoji = Operations.RemoveReaction.Input.Query.EmojiPayload(rawValue: reaction.rawValue) else {
            throw SportLookError.malformed("not a reaction of the contract: \(reaction.rawValue)")
        }
        return try Message(
            try await client.call {
                try await $0.removeReaction(path: .init(id: room, seq: seq), query: .init(emoji: emoji)).ok.body.json
            })
    }

    /// Asks a question with 2–10 answers (`multiple`: several may be chosen); it closes
    /// in a week unless `closesAt` says otherwise.
    @discardableResult
    public func sendPoll(
        _ question: String, answers: [String], in room: String, multiple: Bool = false, closesAt: Date? = nil,
        clientID: String = UUID().uuidString.lowercased()
    ) async throws -> Message {
        let poll = Components.Schemas.NewPoll(options: answers.map { .init(label: $0) }, multiple: multiple, closesAt: closesAt)
        let draft = Components.Schemas.NewMessage(body: question, clientId: clientID, poll: poll)
        return try await post(draft, to: room)
    }

    /// One conversation, as it stands.
    public func conversation(_ id: Conversation.ID) async throws -> Conversation {
        try Conversation(try await client.call { try await $0.getConversation(path: .init(id: id.description)).ok.body.json })
    }
}

extension SportLookClient.People {
    /// Someone's public profile: their name, bio and sports.
    public func get(_ id: Person.ID) async throws -> PublicProfile {
        let profile = try await client.call { try await $0.getUser(path: .init(id: id.description)).ok.body.json }
        return PublicProfile(person: Person(id: try .parse(profile.id), name: profile.name), bio: profile.bio, sports: profile.sports)
    }
}
