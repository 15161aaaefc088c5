import Foundation

/// A chat message.
struct ChatMessage: Sendable, Hashable {
    var id: UUID
    var eventID: UUID
    var seq: Int64
    var sender: UserSummary
    var clientID: String
    /// Empty only when the message is an image.
    var body: String
    var createdAt: Date
    var attachment: ChatAttachment? = nil
}

/// The image a chat message carries: its variants and the largest one's size (so a
/// client lays the message out before the image arrives).
struct ChatAttachment: Sendable, Hashable {
    var image: MediaRef
    var width: Int
    var height: Int
}
