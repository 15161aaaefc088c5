import Foundation
import SportLookAPI

@testable import SportLook

/// The frames the server sends on `/v1/ws`, as the tests read them: the contract's
/// `ServerFrame`, one of its frame types.
extension API {
    /// A frame the server sends on `/v1/ws`: its `type`, and the frame itself as the
    /// contract's `ServerFrame`; each accessor below is the frame when it is of that
    /// type, nil otherwise. A frame the contract does not describe fails the decode.
    struct Frame: Decodable, Sendable {
        var type: String
        var frame: Components.Schemas.ServerFrame

        private enum TypeKey: String, CodingKey { case type }

        init(from decoder: any Decoder) throws {
            type = try decoder.container(keyedBy: TypeKey.self).decode(String.self, forKey: .type)
            frame = try Components.Schemas.ServerFrame(from: decoder)
        }

        var subscribed: Components.Schemas.FrameSubscribed? {
            if case .FrameSubscribed(let frame) = frame { frame } else { nil }
        }
        var unsubscribed: Components.Schemas.FrameUnsubscribed? {
            if case .FrameUnsubscribed(let frame) = frame { frame } else { nil }
        }
        var message: Components.Schemas.FrameMessage? {
            if case .FrameMessage(let frame) = frame { frame } else { nil }
        }
        /// `message_edited` and `message_deleted`.
        var change: Components.Schemas.FrameMessageChanged? {
            if case .FrameMessageChanged(let frame) = frame { frame } else { nil }
        }
        var votes: Components.Schemas.FramePollVotes? {
            if case .FramePollVotes(let frame) = frame { frame } else { nil }
        }
        /// The sender's acknowledgement of its own message.
        var sent: Components.Schemas.FrameSent? {
            if case .FrameSent(let frame) = frame { frame } else { nil }
        }
        var typing: Components.Schemas.FrameTyping? {
            if case .FrameTyping(let frame) = frame { frame } else { nil }
        }
        var read: Components.Schemas.FrameRead? {
            if case .FrameRead(let frame) = frame { frame } else { nil }
        }
        var roomUpdated: Components.Schemas.FrameRoomUpdated? {
            if case .FrameRoomUpdated(let frame) = frame { frame } else { nil }
        }
        var roomRemoved: Components.Schemas.FrameRoomRemoved? {
            if case .FrameRoomRemoved(let frame) = frame { frame } else { nil }
        }
        var notification: Components.Schemas.FrameNotification? {
            if case .FrameNotification(let frame) = frame { frame } else { nil }
        }
        /// `database`: whether writes are taken.
        var database: Components.Schemas.FrameDatabase? {
            if case .FrameDatabase(let frame) = frame { frame } else { nil }
        }
        var error: Components.Schemas.FrameError? {
            if case .FrameError(let frame) = frame { frame } else { nil }
        }
    }
}
