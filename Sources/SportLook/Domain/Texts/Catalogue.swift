import Foundation

/// Every sentence the server writes for people to read in every ``Language``: notifications,
/// reminders and mails by key, as ``MessageFormat`` templates (CLDR plural rules choose a
/// plural's branch); errors' messages and fields' problems by their English ``Sentence``.
/// The recipient's language picks the text (a request's `Accept-Language` for its
/// answer). A key or a sentence without a text in some language, or whose texts name
/// different arguments, fails `CatalogueTests`.
enum Catalogue {
    enum Key: String, CaseIterable, Sendable {
        case waitlistPromotedTitle = "waitlist_promoted.title"
        case waitlistPromotedBody = "waitlist_promoted.body"
        case waitlistOfferTitle = "waitlist_offer.title"
        case waitlistOfferBody = "waitlist_offer.body"
        case offerExpiredTitle = "waitlist_offer_expired.title"
        case offerExpiredBody = "waitlist_offer_expired.body"
        case groupRequestTitle = "group_request.title"
        case groupRequestBody = "group_request.body"
        case groupEventTitle = "group_event.title"
        case groupEventBody = "group_event.body"
        case groupEventMembersOnlyBody = "group_event.members_only.body"
        case groupAcceptedTitle = "group_request_accepted.title"
        case groupAcceptedBody = "group_request_accepted.body"
        case groupRefusedTitle = "group_request_refused.title"
        case groupRefusedBody = "group_request_refused.body"
        case eventUpdatedTitle = "event_updated.title"
        case eventUpdatedPlaceBody = "event_updated.place.body"
        case eventUpdatedTimeBody = "event_updated.time.body"
        case eventCancelledTitle = "event_cancelled.title"
        case cancelledByOrganiser = "event_cancelled.organiser"
        case cancelledGroupDeleted = "event_cancelled.group_deleted"
        case cancelledOrganiserLeftGroup = "event_cancelled.organiser_left_group"
        case cancelledNotEnoughPlayers = "event_cancelled.not_enough_players"
        case gameOnTitle = "game_on.title"
        case gameOnBody = "game_on.body"
        case invitationTitle = "invitation.title"
        case invitationBody = "invitation.body"
        case invitationAcceptedTitle = "invitation_accepted.title"
        case invitationAcceptedBody = "invitation_accepted.body"
        case chatMessageBody = "chat_message.body"
        case chatMentionBody = "chat_message.mention.body"
        case chatMessageDeleted = "chat_message.deleted.body"
        case chatPhoto = "chat_message.photo"
        case pushTestBody = "push_test.body"
        case reminderTitle = "reminder.title"
        case reminderBody = "reminder.body"
        case decideTitle = "reminder.decide.title"
        case decideBody = "reminder.decide.body"
        case whenToday = "when.today"
        case whenTomorrow = "when.tomorrow"
        case whenLater = "when.later"
        case weekdays = "when.weekdays"
        case months = "when.months"
        case verifyMailSubject = "mail.verify.subject"
        case verifyMailText = "mail.verify.text"
        case resetMailSubject = "mail.reset.subject"
        case resetMailText = "mail.reset.text"
        case resetMailUnmarkedSubject = "mail.reset.unmarked.subject"
        case resetMailUnmarkedText = "mail.reset.unmarked.text"
        case moderationTitle = "moderation.title"
        case moderationWarned = "moderation.warn.body"
        case moderationMessageRemoved = "moderation.remove.message.body"
        case moderationEventRemoved = "moderation.remove.event.body"
        case moderationGroupRemoved = "moderation.remove.group.body"
        case moderationPhotoRemoved = "moderation.remove.photo.body"
        case moderationLimited = "moderation.limit.body"
        case moderationSuspended = "moderation.suspend.body"
        case moderationSuspendedForGood = "moderation.suspend.for_good.body"
        case moderationLifted = "moderation.lift.body"
        case reportOutcomeTitle = "report_outcome.title"
        case reportActedOn = "report_outcome.acted.body"
        case reportDismissed = "report_outcome.dismissed.body"
        case appealDecidedTitle = "appeal_decided.title"
        case appealUpheld = "appeal_decided.upheld.body"
        case appealReversed = "appeal_decided.reversed.body"
        case exportReadyTitle = "data_export_ready.title"
        case exportReadyBody = "data_export_ready.body"
        case exportMailSubject = "mail.export.subject"
        case exportMailText = "mail.export.text"
        case teamsPublishedTitle = "teams_published.title"
        case teamsPublishedBody = "teams_published.body"
        case teamMovedTitle = "team_moved.title"
        case teamMovedBody = "team_moved.body"
        case resultEnteredTitle = "result_entered.title"
        case resultEnteredBody = "result_entered.body"
        case substituteOfferTitle = "substitute_offer.title"
        case substituteOfferBody = "substitute_offer.body"
        case substituteFoundTitle = "substitute_found.title"
        case substituteFoundBody = "substitute_found.body"
        case pollReminderTitle = "poll_reminder.title"
        case pollReminderBody = "poll_reminder.body"
        case pollClosedTitle = "poll_closed.title"
        case pollClosedBody = "poll_closed.body"
        case paymentDueTitle = "payment_due.title"
        case paymentDueBody = "payment_due.body"
        case paymentClaimedTitle = "payment_claimed.title"
        case paymentClaimedBody = "payment_claimed.body"
        case duesDueTitle = "dues_due.title"
        case duesDueBody = "dues_due.body"
        case duesClaimedBody = "dues_claimed.body"
    }

    /// A sentence of the code's (an error's message, a field's problem) in `language`:
    /// its English template is its key among ``danishSentences``.
    static func sentence(_ sentence: Sentence, in language: Language) -> String {
        let table = sentences(language)
        return sentence.filled { table[$0] }
    }

    /// The code's sentences in a language, by their English templates (English: none, the
    /// code's own text is the English).
    static func sentences(_ language: Language) -> [String: String] {
        switch language {
        case .en: [:]
        case .da: danishSentences
        }
    }

    /// The code's sentences in Danish, by their English templates: errors' messages and
    /// fields' problems (a template is one or the other).
    private static let danishSentences = danishErrors.merging(danishFieldProblems) { message, _ in message }

    /// `key` in `language` with `arguments` put in.
    static func text(_ key: Key, _ arguments: [String: MessageArgument] = [:], in language: Language) -> String {
        guard let format = formats[language]?[key] ?? formats[.en]?[key] else { return key.rawValue }
        return format.format(arguments, rules: rules(language))
    }

    /// A list kept as one template of `|`-separated words (weekdays, months): its `index`th.
    static func word(_ key: Key, _ index: Int, in language: Language) -> String {
        let words = lists[language]?[key] ?? []
        return words.indices.contains(index) ? words[index] : ""
    }

    /// The word lists, split once.
    private static let lists: [Language: [Key: [String]]] = Dictionary(
        uniqueKeysWithValues: Language.allCases.map { language in
            (
                language,
                Dictionary(
                    uniqueKeysWithValues: [Key.weekdays, .months].map {
                        ($0, text($0, in: language).split(separator: "|").map(String.init))
                    })
            )
        })

    static func rules(_ language: Language) -> PluralRules {
        switch language {
        case .en: .english
        case .da: .danish
        }
    }

    /// The templates of each language, as written.
    static func templates(_ language: Language) -> [Key: String] {
        switch language {
        case .en: english
        case .da: danish
        }
    }

    /// Every template parsed once (one that does not parse is left out, and the tests say so).
    private static let formats: [Language: [Key: MessageFormat]] = Dictionary(
        uniqueKeysWithValues: Language.allCases.map { language in
            (language, templates(language).compactMapValues { try? MessageFormat($0) })
        })
}
