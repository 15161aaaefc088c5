import Foundation
import Logging

/// A socket's error frames: the code, and the sentence in the socket's language.
extension ChatConnection {
    /// The error frame answering a client's frame that failed: a domain refusal as
    /// it is (with its retry hint; past capacity that is `overloaded`, see ``Admission``),
    /// anything else logged with its context and answered `unavailable`.
    func refusal(
        _ error: any Error, _ what: String, room: UUID, clientID: String? = nil,
        otherwise message: Sentence = Sentence("Try again shortly.")
    ) -> String {
        let refusal: DomainError
        switch error {
        case let error as DomainError: refusal = error
        case is DatabaseReadOnly: refusal = .readOnly
        default:
            logger.warning("\(what)", metadata: ["room": "\(room)", "error": "\(error)"])
            refusal = DomainError(.unavailable, code: "unavailable", message: message, retryAfter: 5)
        }
        return errorFrame(refusal.code, refusal.sentence, room: address(of: room), clientID: clientID, retryAfter: refusal.retryAfter)
    }

    /// An error frame, its sentence in the socket's ``language``.
    func errorFrame(
        _ code: String, _ message: Sentence, room: RoomAddress? = nil, clientID: String? = nil, retryAfter: Int? = nil
    ) -> String {
        Frames.error(code, Catalogue.sentence(message, in: language), room: room, clientID: clientID, retryAfter: retryAfter)
    }
}
