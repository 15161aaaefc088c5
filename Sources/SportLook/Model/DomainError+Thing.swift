import Foundation

extension DomainError {
    /// What a `not_found` refusal found no such one of (its raw value is the thing as a
    /// report names it: `user`, `event`, `message`, `photo`, `group`).
    enum Thing: String, Sendable, CaseIterable {
        case account, attendee, ban, block, calendar, claim, conversation, device, event, export, file, group
        case invitation, media, member, membership, message, offer, photo, report, request, result, room, series
        case session, user
        case actionToAppeal = "action to appeal"
        case linkedAccount = "linked account"
        case openAppeal = "open appeal"
        case openReport = "open report"
        case substituteRequest = "substitute request"

        /// "No such event.", in the reader's language.
        var notFound: Sentence {
            switch self {
            case .account: Sentence("No such account.")
            case .actionToAppeal: Sentence("No such action to appeal.")
            case .attendee: Sentence("No such attendee.")
            case .ban: Sentence("No such ban.")
            case .block: Sentence("No such block.")
            case .calendar: Sentence("No such calendar.")
            case .claim: Sentence("No such claim.")
            case .conversation: Sentence("No such conversation.")
            case .device: Sentence("No such device.")
            case .event: Sentence("No such event.")
            case .export: Sentence("No such export.")
            case .file: Sentence("No such file.")
            case .group: Sentence("No such group.")
            case .invitation: Sentence("No such invitation.")
            case .linkedAccount: Sentence("No such linked account.")
            case .media: Sentence("No such media.")
            case .member: Sentence("No such member.")
            case .membership: Sentence("No such membership.")
            case .message: Sentence("No such message.")
            case .offer: Sentence("No such offer.")
            case .openAppeal: Sentence("No such open appeal.")
            case .openReport: Sentence("No such open report.")
            case .photo: Sentence("No such photo.")
            case .report: Sentence("No such report.")
            case .request: Sentence("No such request.")
            case .result: Sentence("No such result.")
            case .room: Sentence("No such room.")
            case .series: Sentence("No such series.")
            case .session: Sentence("No such session.")
            case .substituteRequest: Sentence("No such substitute request.")
            case .user: Sentence("No such user.")
            }
        }
    }
}
