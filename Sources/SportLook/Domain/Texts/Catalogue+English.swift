extension Catalogue {
    static let english: [Key: String] = [
        .waitlistPromotedTitle: "You're in: {event}",
        .waitlistPromotedBody: "A place opened up: you are now going.",
        .waitlistOfferTitle: "A place for you: {event}",
        .waitlistOfferBody: "A place opened up: take it by {when} or it passes on.",
        .offerExpiredTitle: "The place passed on: {event}",
        .offerExpiredBody: "The place offered to you was not taken in time; you are off the waitlist.",
        .groupRequestTitle: "{person} asks to join {group}",
        .groupRequestBody: "Accept or refuse the request in the group.",
        .groupEventTitle: "{group}: {event}",
        .groupEventBody: "A new game in the group. Join it in the app.",
        .groupEventMembersOnlyBody: "A new members-only game in the group. Join it in the app.",
        .groupAcceptedTitle: "Welcome to {group}",
        .groupAcceptedBody: "Your request to join was accepted: you are a member.",
        .groupRefusedTitle: "{group} did not accept your request",
        .groupRefusedBody: "An admin refused your request to join.",
        .eventUpdatedTitle: "{event} has changed",
        .eventUpdatedPlaceBody: "New place: check the details.",
        .eventUpdatedTimeBody: "New time: check the details.",
        .eventCancelledTitle: "{event} is cancelled",
        .cancelledByOrganiser: "The organiser cancelled it.",
        .cancelledGroupDeleted: "Its group, {group}, was deleted.",
        .cancelledOrganiserLeftGroup: "Its organiser is no longer in {group}.",
        .cancelledNotEnoughPlayers:
            "Not enough players: {going, plural, =0 {nobody was going} one {# of the {needed} needed was going} other {# of the {needed} needed were going}}.",
        .gameOnTitle: "Game on: {event}",
        .gameOnBody: "Enough players are going: {event} happens.",
        .invitationTitle: "Invitation: {event}",
        .invitationBody: "{inviter} invites you to {event}.",
        .invitationAcceptedTitle: "{invitee} is coming",
        .invitationAcceptedBody: "{invitee} accepted your invitation to {event}.",
        .chatMessageBody: "{sender}: {preview}",
        .chatMentionBody: "{sender} mentioned you: {preview}",
        .chatMessageDeleted: "{sender}: Message deleted",
        .chatPhoto: "📷 Photo",
        .pushTestBody: "A test notification: pushes reach this device.",
        .reminderTitle: "Reminder: {event}",
        .reminderBody: "{event} starts {when}.",
        .decideTitle: "Are you coming? {event}",
        .decideBody: "{event} starts {when}. You said maybe: say whether you are going.",
        .whenToday: "today at {time}",
        .whenTomorrow: "tomorrow at {time}",
        .whenLater: "{weekday} {day} {month} at {time}",
        .weekdays: "Sunday|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday",
        .months: "January|February|March|April|May|June|July|August|September|October|November|December",
        .verifyMailSubject: "Your SportLook verification code",
        .verifyMailText: """
        Your code to verify this email address for SportLook:

            {code}

        It works once, within {minutes, plural, one {# minute} other {# minutes}}. If you did not ask for it, you can ignore this mail.
        """,
        .resetMailSubject: "Your SportLook password reset code ({mark})",
        .resetMailText: """
        Someone, we hope you, asked to set a new password for the SportLook account of this address; the page that asked shows the mark {mark}. Your code:

            {code}

        It works once, within {minutes, plural, one {# minute} other {# minutes}}. If you did not ask for it, ignore this mail: your password stays as it is.
        """,
        .resetMailUnmarkedSubject: "Your SportLook password reset code",
        .resetMailUnmarkedText: """
        Someone, we hope you, asked to set a new password for the SportLook account of this address. Your code:

            {code}

        It works once, within {minutes, plural, one {# minute} other {# minutes}}. If you did not ask for it, ignore this mail: your password stays as it is.
        """,
        .moderationTitle: "A note from SportLook's moderators",
        .moderationWarned: "A warning about what you posted: {reason}",
        .moderationMessageRemoved: "Your message was removed: {reason}",
        .moderationEventRemoved: "Your game {event} was cancelled: {reason}",
        .moderationGroupRemoved: "Your group {group} was closed: {reason}",
        .moderationPhotoRemoved: "Your photo was taken down: {reason}",
        .moderationLimited: "Your account is limited: people nearby no longer show you and your invitations reach no one. Why: {reason}",
        .moderationSuspended: "Your account is suspended until {until} (UTC): {reason}",
        .moderationSuspendedForGood: "Your account is suspended: {reason}",
        .moderationLifted: "The limit or suspension on your account has ended.",
        .reportOutcomeTitle: "Your report was reviewed",
        .reportActedOn: "Thank you: the moderators acted on what you reported.",
        .reportDismissed: "Thank you: the moderators looked at what you reported and found nothing against the rules.",
        .appealDecidedTitle: "Your appeal was decided",
        .appealUpheld: "Another moderator looked again and kept the decision: {reason}",
        .appealReversed: "Another moderator looked again and reversed the decision: {reason}",
        .exportReadyTitle: "Your data is ready",
        .exportReadyBody: "Download the archive of your SportLook data from the app within {days, plural, one {# day} other {# days}}.",
        .exportMailSubject: "Your SportLook data is ready",
        .exportMailText: """
        The archive of your SportLook data that you asked for is ready. Download it here:

            {link}

        The link works until {date} (UTC), {days, plural, one {# day} other {# days}} from now; the archive is deleted then. Keep the link to yourself: anyone who has it can download your data. If you did not ask for your data, change your password.
        """,
        .teamsPublishedTitle: "Teams for {event}",
        .teamsPublishedBody: "You play on team {team}.",
        .teamMovedTitle: "New team for {event}",
        .teamMovedBody: "Someone left or joined: you now play on team {team}.",
        .resultEnteredTitle: "Score for {event}: {score}",
        .resultEnteredBody: "{person} entered the score. Confirm or dispute it within a day, or it stands.",
        .substituteOfferTitle: "A place for you: {event}",
        .substituteOfferBody: "{person} cannot come. Take their place by {when}; the first to accept gets it.",
        .substituteFoundTitle: "{person} takes your place",
        .substituteFoundBody: "{person} plays {event} in your stead: you are no longer going.",
        .pollReminderTitle: "Poll: {question}",
        .pollReminderBody: "{person} asks you to answer before the poll closes.",
        .pollClosedTitle: "Your poll closed: {question}",
        .pollClosedBody: "See what everyone answered.",
        .paymentDueTitle: "You owe {amount} for {event}",
        .paymentDueBody: "Pay {organiser}, who organised it, then say you paid on the game's page.",
        .paymentClaimedTitle: "{person} says they paid {amount}",
        .paymentClaimedBody: "For {event}: confirm or decline it on the game's money sheet.",
        .duesDueTitle: "You owe {amount} in dues to {group}",
        .duesDueBody: "Pay {owner}, who keeps the group's money, then say you paid on the group's page.",
        .duesClaimedBody: "Dues of {group}: confirm or decline it on the group's money sheet.",
    ]
}
