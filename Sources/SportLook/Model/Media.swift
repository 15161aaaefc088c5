import Foundation

/// What an upload is for; it decides the variants made of it.
public enum MediaUse: String, Sendable, Hashable, CaseIterable {
    case profile, cover, chat
}

/// One processed upload.
public struct Media: Sendable, Hashable {
    public var id: UUID
    public var ownerID: UUID
    public var use: MediaUse
    /// The upright original's size.
    public var width: Int
    public var height: Int
    /// All variants' bytes together (what counts against storage).
    public var bytes: Int
    public var createdAt: Date
    /// When it was first put to use (a photo, a cover, a message); nil until then.
    public var attachedAt: Date?
    /// Largest first.
    public var variants: [MediaVariant]

    /// How things that show it refer to it.
    var reference: MediaRef { MediaRef(id: id, variants: variants.map { .init(name: $0.name, key: $0.key) }) }
}

/// One stored JPEG of an upload.
public struct MediaVariant: Sendable, Hashable {
    public var name: String
    /// The blob store's content-addressed key.
    public var key: String
    public var width: Int
    public var height: Int
    public var bytes: Int
}

/// An upload as a profile or event holds it: its id and each variant's key,
/// largest first.
public struct MediaRef: Sendable, Hashable, Decodable {
    public struct Variant: Sendable, Hashable, Decodable {
        public var name: String
        public var key: String
    }

    public var id: UUID
    public var variants: [Variant]

    /// The stored form, `512=<key> 128=<key>`.
    var stored: String { variants.map { "\($0.name)=\($0.key)" }.joined(separator: " ") }

    /// Reads the stored form; nil without an id or with nothing readable.
    init?(id: UUID?, stored: String?) {
        guard let id, let stored else { return nil }
        let variants = stored.split(separator: " ").compactMap { pair -> Variant? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? Variant(name: String(parts[0]), key: String(parts[1])) : nil
        }
        guard !variants.isEmpty else { return nil }
        self.init(id: id, variants: variants)
    }

    init(id: UUID, variants: [Variant]) {
        self.id = id
        self.variants = variants
    }
}

/// Where an upload in use shows: a person's profile, an event's or a group's cover, a
/// chat message's image.
enum PhotoPlace: Sendable, Hashable {
    case profile(person: UUID)
    case event(UUID)
    case group(UUID)
    case message(room: UUID, seq: Int64)

    /// Its name in the contract.
    var kind: String {
        switch self {
        case .profile: "profile"
        case .event: "event"
        case .group: "group"
        case .message: "message"
        }
    }
}
