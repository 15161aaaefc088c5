extension Catalogue {
    static let danish: [Key: String] = [
        .waitlistPromotedTitle: "Du er med: {event}",
        .waitlistPromotedBody: "Der blev en plads fri: du er nu tilmeldt.",
        .waitlistOfferTitle: "En plads til dig: {event}",
        .waitlistOfferBody: "Der blev en plads fri: tag den senest {when}, ellers går den videre.",
        .offerExpiredTitle: "Pladsen gik videre: {event}",
        .offerExpiredBody: "Pladsen, du fik tilbudt, blev ikke taget i tide; du er ikke længere på ventelisten.",
        .groupRequestTitle: "{person} beder om at komme med i {group}",
        .groupRequestBody: "Sig ja eller nej til anmodningen i gruppen.",
        .groupEventTitle: "{group}: {event}",
        .groupEventBody: "Et nyt spil i gruppen. Tilmeld dig i appen.",
        .groupEventMembersOnlyBody: "Et nyt spil kun for medlemmer i gruppen. Tilmeld dig i appen.",
        .groupAcceptedTitle: "Velkommen til {group}",
        .groupAcceptedBody: "Din anmodning blev godkendt: du er medlem.",
        .groupRefusedTitle: "{group} sagde nej til din anmodning",
        .groupRefusedBody: "En administrator afviste din anmodning om at komme med.",
        .eventUpdatedTitle: "{event} er ændret",
        .eventUpdatedPlaceBody: "Nyt sted: se detaljerne.",
        .eventUpdatedTimeBody: "Nyt tidspunkt: se detaljerne.",
        .eventCancelledTitle: "{event} er aflyst",
        .cancelledByOrganiser: "Aflyst af arrangøren.",
        .cancelledGroupDeleted: "Gruppen {group} er slettet.",
        .cancelledOrganiserLeftGroup: "Arrangøren er ikke længere med i {group}.",
        .cancelledNotEnoughPlayers:
            "For få spillere: {going, plural, =0 {ingen} one {# spiller} other {# spillere}} af de {needed} nødvendige var tilmeldt.",
        .gameOnTitle: "Nok spillere: {event}",
        .gameOnBody: "Der er nok spillere tilmeldt: {event} bliver til noget.",
        .invitationTitle: "Invitation: {event}",
        .invitationBody: "{inviter} inviterer dig til {event}.",
        .invitationAcceptedTitle: "{invitee} kommer",
        .invitationAcceptedBody: "{invitee} har takket ja til din invitation til {event}.",
        .chatMessageBody: "{sender}: {preview}",
        .chatMentionBody: "{sender} nævnte dig: {preview}",
        .chatMessageDeleted: "{sender}: Beskeden er slettet",
        .chatPhoto: "📷 Billede",
        .pushTestBody: "En testbesked: notifikationer når frem til denne enhed.",
        .reminderTitle: "Påmindelse: {event}",
        .reminderBody: "{event} begynder {when}.",
        .decideTitle: "Kommer du? {event}",
        .decideBody: "{event} begynder {when}. Du svarede måske: sig til, om du kommer.",
        .whenToday: "i dag kl. {time}",
        .whenTomorrow: "i morgen kl. {time}",
        .whenLater: "{weekday} den {day}. {month} kl. {time}",
        .weekdays: "søndag|mandag|tirsdag|onsdag|torsdag|fredag|lørdag",
        .months: "januar|februar|marts|april|maj|juni|juli|august|september|oktober|november|december",
        .verifyMailSubject: "Din bekræftelseskode til SportLook",
        .verifyMailText: """
        Din kode til at bekræfte denne e-mailadresse hos SportLook:

            {code}

        Den kan bruges én gang, inden for {minutes, plural, one {# minut} other {# minutter}}. Har du ikke bedt om den, kan du se bort fra denne mail.
        """,
        .resetMailSubject: "Din kode til nulstilling af adgangskoden til SportLook ({mark})",
        .resetMailText: """
        Nogen, forhåbentlig du, har bedt om en ny adgangskode til SportLook-kontoen med denne adresse; siden, der bad om den, viser mærket {mark}. Din kode:

            {code}

        Den kan bruges én gang, inden for {minutes, plural, one {# minut} other {# minutter}}. Har du ikke bedt om den, så se bort fra denne mail: din adgangskode er uændret.
        """,
        .resetMailUnmarkedSubject: "Din kode til nulstilling af adgangskoden til SportLook",
        .resetMailUnmarkedText: """
        Nogen, forhåbentlig du, har bedt om en ny adgangskode til SportLook-kontoen med denne adresse. Din kode:

            {code}

        Den kan bruges én gang, inden for {minutes, plural, one {# minut} other {# minutter}}. Har du ikke bedt om den, så se bort fra denne mail: din adgangskode er uændret.
        """,
        .moderationTitle: "En besked fra SportLooks moderatorer",
        .moderationWarned: "En advarsel om det, du har skrevet: {reason}",
        .moderationMessageRemoved: "Din besked blev fjernet: {reason}",
        .moderationEventRemoved: "Din kamp {event} blev aflyst: {reason}",
        .moderationGroupRemoved: "Din gruppe {group} blev lukket: {reason}",
        .moderationPhotoRemoved: "Dit billede blev fjernet: {reason}",
        .moderationLimited:
            "Din konto er begrænset: folk i nærheden ser dig ikke længere, og dine invitationer når ingen. Hvorfor: {reason}",
        .moderationSuspended: "Din konto er suspenderet indtil {until} (UTC): {reason}",
        .moderationSuspendedForGood: "Din konto er suspenderet: {reason}",
        .moderationLifted: "Begrænsningen eller suspenderingen af din konto er ophævet.",
        .reportOutcomeTitle: "Din anmeldelse er behandlet",
        .reportActedOn: "Tak: moderatorerne har grebet ind over for det, du anmeldte.",
        .reportDismissed: "Tak: moderatorerne har set på det, du anmeldte, og fandt intet i strid med reglerne.",
        .appealDecidedTitle: "Din klage er behandlet",
        .appealUpheld: "En anden moderator har set på sagen igen og fastholder afgørelsen: {reason}",
        .appealReversed: "En anden moderator har set på sagen igen og omgør afgørelsen: {reason}",
        .exportReadyTitle: "Dine data er klar",
        .exportReadyBody: "Hent arkivet med dine SportLook-data i appen inden for {days, plural, one {# dag} other {# dage}}.",
        .exportMailSubject: "Dine SportLook-data er klar",
        .exportMailText: """
        Arkivet med dine SportLook-data, som du bad om, er klar. Hent det her:

            {link}

        Linket virker indtil {date} (UTC), om {days, plural, one {# dag} other {# dage}}; så slettes arkivet. Del ikke linket: alle, der har det, kan hente dine data. Hvis du ikke bad om dine data, så skift din adgangskode.
        """,
        .teamsPublishedTitle: "Hold til {event}",
        .teamsPublishedBody: "Du spiller på hold {team}.",
        .teamMovedTitle: "Nyt hold til {event}",
        .teamMovedBody: "Nogen meldte fra eller kom til: du spiller nu på hold {team}.",
        .resultEnteredTitle: "Resultat for {event}: {score}",
        .resultEnteredBody: "{person} har indtastet resultatet. Bekræft eller bestrid det inden for et døgn, ellers står det.",
        .substituteOfferTitle: "En plads til dig: {event}",
        .substituteOfferBody: "{person} kan ikke komme. Tag pladsen senest {when}; den første, der siger ja, får den.",
        .substituteFoundTitle: "{person} tager din plads",
        .substituteFoundBody: "{person} spiller {event} i dit sted: du er ikke længere tilmeldt.",
        .pollReminderTitle: "Afstemning: {question}",
        .pollReminderBody: "{person} beder dig svare, før afstemningen lukker.",
        .pollClosedTitle: "Din afstemning er lukket: {question}",
        .pollClosedBody: "Se, hvad alle svarede.",
        .paymentDueTitle: "Du skylder {amount} for {event}",
        .paymentDueBody: "Betal {organiser}, som arrangerede den, og sig så på kampens side, at du har betalt.",
        .paymentClaimedTitle: "{person} siger at have betalt {amount}",
        .paymentClaimedBody: "For {event}: bekræft eller afvis det på kampens betalingsoversigt.",
        .duesDueTitle: "Du skylder {amount} i kontingent til {group}",
        .duesDueBody: "Betal {owner}, som styrer gruppens penge, og sig så på gruppens side, at du har betalt.",
        .duesClaimedBody: "Kontingent til {group}: bekræft eller afvis det på gruppens betalingsoversigt.",
    ]
}
