import Foundation

/// The caller's own profile (`GET /v1/me`).
struct PrivateProfile: JSONEncodable {
    var user: User
    var links: MediaLinks

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", user.id)
        json.field("name", user.name)
        // An account a provider made without an email has none.
        json.field("email", user.email.isEmpty ? nil : user.email)
        json.field("email_verified", user.emailVerified)
        json.field("bio", user.bio)
        links.writeImageFields(user.photo, to: &json)
        json.key("sports")
        json.arrayStart()
        for slug in user.sports { json.value(slug) }
        json.arrayEnd()
        json.key("location")
        if let location = user.location {
            json.objectStart()
            json.field("lat", location.lat)
            json.field("lon", location.lon)
            json.objectEnd()
        } else {
            json.null()
        }
        json.field("discoverable", user.discoverable)
        json.field("reminders", user.reminders)
        json.field("language", user.language.rawValue)
        json.field("calendar_feed", user.hasCalendarFeed)
        json.field("created_at", user.createdAt)
        json.objectEnd()
    }
}

/// `{user, access_token, token_type, expires_at}` after register and login.
struct IssuedToken: JSONEncodable {
    var issued: AccountService.Issued
    var links: MediaLinks
    /// `false` when the token went into the session cookie instead.
    var includesToken: Bool

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("user")
        PrivateProfile(user: issued.user, links: links).encode(to: &json)
        if includesToken {
            json.field("access_token", issued.token)
            json.field("token_type", "Bearer")
        }
        json.field("expires_at", issued.expiresAt)
        json.field("device_key", issued.deviceKey)
        json.objectEnd()
    }
}

/// `{reset_id}`: what a password reset's asker sends back with the mailed code.
struct ResetRequested: JSONEncodable {
    var resetID: String
    /// What the mail for this request is marked with.
    var mark: String

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("reset_id", resetID)
        json.field("mark", mark)
        json.objectEnd()
    }
}

/// One live access token of the caller.
struct SessionRepresentation: JSONEncodable {
    var session: SessionInfo
    var current: Bool

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", session.id)
        json.field("created_at", session.createdAt)
        json.field("expires_at", session.expiresAt)
        json.field("last_used_at", session.lastUsedAt)
        json.field("user_agent", session.userAgent)
        json.field("current", current)
        json.objectEnd()
    }
}

/// What anyone may see of a person: id, name, image, bio, favourite sports.
enum PublicUserJSON {
    /// The people index's card encoder: the public fields, unterminated.
    static func cardEncoder(links: MediaLinks) -> @Sendable (User) -> [UInt8] {
        { user in
            var json = JSONWriter(capacity: 512)
            writeFields(user, links: links, to: &json)
            return json.bytes
        }
    }

    /// Opens an object and writes the public fields; the caller adds more and closes it.
    static func writeFields(_ user: User, links: MediaLinks, to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", user.id)
        json.field("name", user.name)
        links.writeImageFields(user.photo, to: &json)
        json.field("bio", user.bio)
        json.key("sports")
        json.arrayStart()
        for slug in user.sports { json.value(slug) }
        json.arrayEnd()
    }
}

/// `{id, name}` of someone else.
struct UserSummaryRepresentation: JSONEncodable {
    var id: UUID
    var name: String

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", id)
        json.field("name", name)
        json.objectEnd()
    }
}

/// A catalogue entry.
struct SportRepresentation: JSONEncodable {
    var sport: Sport

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("slug", sport.slug)
        json.field("name", sport.name)
        json.objectEnd()
    }
}

/// `{"items": [...]}` without a cursor (short, complete lists).
struct ItemList<Item: JSONEncodable>: JSONEncodable {
    var items: [Item]

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("items")
        json.arrayStart()
        for item in items { item.encode(to: &json) }
        json.arrayEnd()
        json.objectEnd()
    }
}

/// A provider account linked to the caller (`GET /v1/me/identities`).
struct LinkedIdentityRepresentation: JSONEncodable {
    var identity: LinkedIdentity

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("provider", identity.provider.rawValue)
        json.field("email", identity.email)
        json.field("created_at", identity.createdAt)
        json.objectEnd()
    }
}
