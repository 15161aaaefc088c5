import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Everything a running SportLook instance is made of, built once by
/// ``buildApplication(_:clock:logger:migrate:)`` and shared by routes and services.
public final class AppServices: Sendable {
    public let configuration: AppConfiguration
    public let clock: any AppClock
    public let logger: Logger
    public let database: Database
    public let resources: Resources
    public let hasher: PasswordHasher
    public let sports: SportCatalog
    public let tokens: TokenAuthenticator
    /// The one path of every committed change to memory and sockets, here and on other instances.
    let changes: ChangeFeed
    /// Carries changes between instances (the feed's).
    public var bus: Bus { changes.bus }
    public let routes = RouteTable()
    let accountStore: AccountStore
    let sessionStore: SessionStore
    let accounts: AccountService
    let codes: EmailCodeService
    let eventStore: EventStore
    let eventIndex: EventIndex
    let attendanceCache: AttendanceCache
    /// Each recent caller's groups.
    let membershipCache: MembershipCache
    /// Who may see which event (members-only events).
    let eventAccess: EventAccess
    let events: EventService
    let eventSearch: EventSearch
    let calendarFeeds: CalendarFeeds
    let series: SeriesService
    let showingUp: ShowingUp
    /// Fair teams for the people going.
    let teams: Teams
    /// Scores and the levels they move.
    let results: Results
    /// Substitutes found nearby for a player who cannot come.
    let substitutes: Substitutes
    let polls: Polls
    /// Prices and each game's ledger; card payments through Stripe.
    let ledger: Ledger
    let cards: CardPayments
    let players: Players
    /// Staff roles and the audit log.
    let staff: StaffService
    /// The reports queue and staff's actions on content and people.
    let moderation: ModerationService
    /// Each person's data on request.
    let exports: ExportService
    /// The job queue in the console.
    let staffJobs: StaffJobs
    /// Refusals (429, 503) of this instance by code, for the abuse panel.
    let refusals: RefusalCounts
    let abuse: AbuseService
    let groups: GroupService
    let jobStore: JobStore
    let reminders: Reminders
    /// Timed work: queued by ``scheduler``, run by the workers through ``scheduledWork``.
    let scheduler: Scheduler
    let scheduledWork: ScheduledWork
    let notifier: Notifier
    let write: Writer
    let inbox: InboxStore
    /// The inbox and devices as the routes use them.
    let notifications: NotificationService
    let invitations: InvitationService
    let httpClient: HTTPClient
    /// Outgoing pushes (APNs, FCM, OAuth): HTTP/2 where offered, `PUSH_CA_FILE` trusted.
    let pushClient: HTTPClient
    /// Where each device's pushes go.
    let channels: PushChannels
    /// Where code mails go (`nil`: none configured).
    let mailer: MailTransport?
    let workers: [JobWorker]
    let chatStore: ChatStore
    let chat: ChatService
    let rooms: RoomService
    let hub: ChatHub
    /// How far behind this process's tasks run (requests are refused past capacity).
    let schedulerLag: SchedulerLag
    let userIndex: UserIndex
    let groupIndex: GroupIndex
    let groupStore: GroupStore
    let peopleCache: PeopleCache
    /// Keeps the indexes and caches in step with the database.
    let sync: CacheSync
    let people: PeopleService
    /// Where media URLs point.
    let mediaLinks: MediaLinks
    let blobs: any BlobStore
    let media: MediaService
    let mediaWorkers: NIOThreadPool

    init(
        configuration: AppConfiguration, clock: any AppClock, queueClock: (any AppClock)? = nil, logger: Logger, database: Database,
        resources: Resources
    ) async throws {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.database = database
        self.resources = resources
        let sports = try await SportStore.load(database)
        self.sports = sports
        self.hasher = PasswordHasher(
            cost: configuration.bcryptCost, queueLimit: configuration.hashQueueLimit, yielding: configuration.hashingYields)
        let policy = PasswordPolicy(
            commonPasswords: (try? String(contentsOf: resources.seed("common-passwords.txt"), encoding: .utf8)) ?? "")
        let changes = ChangeFeed(database: database, logger: logger)
        self.changes = changes
        let accountStore = AccountStore(database: database)
        self.accountStore = accountStore
        let sessionStore = SessionStore(database: database)
        self.sessionStore = sessionStore
        let attempts = AttemptStore(database: database)
        let tokens = TokenAuthenticator(sessions: sessionStore, clock: clock)
        self.tokens = tokens
        let urlSecret =
            configuration.mediaURLSecret.isEmpty
            ? try await SecretStore(database: database).secret("media_url_key") : configuration.mediaURLSecret
        let mediaLinks = MediaLinks(base: configuration.mediaPublicURL, signer: MediaURLSigner(secret: Array(urlSecret.utf8)))
        self.mediaLinks = mediaLinks
        // Signed requests (S3, the push gateway) go where they were sent, never where a redirect points.
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        self.httpClient = httpClient
        let blobs = try makeBlobStore(configuration, client: httpClient)
        self.blobs = blobs
        let mediaStore = MediaStore(database: database)
        let attachments = MediaAttachments(store: mediaStore, blobs: blobs)
        let eventIndex = EventIndex(
            cellSize: configuration.geoCellSize, sports: sports, encodeCard: EventJSON.cardEncoder(sports: sports, links: mediaLinks))
        self.eventIndex = eventIndex
        let eventStore = EventStore(database: database)
        self.eventStore = eventStore
        let attendanceCache = AttendanceCache(load: { [eventStore] user, now in try await eventStore.statuses(of: user, now: now) })
        self.attendanceCache = attendanceCache
        let groupStore = GroupStore(database: database)
        self.groupStore = groupStore
        let seriesStore = SeriesStore(database: database)
        let membershipCache = MembershipCache(load: { [groupStore] user, _ in try await groupStore.memberships(of: user) })
        self.membershipCache = membershipCache
        let eventAccess = EventAccess(
            events: eventStore, seriesStore: seriesStore, groups: groupStore, index: eventIndex, memberships: membershipCache,
            attendance: attendanceCache,
            cachesHearChanges: { [bus = changes.bus] in bus.isListening }, clock: clock)
        self.eventAccess = eventAccess
        let userIndex = UserIndex(
            cellSize: configuration.geoCellSize, sports: sports, encodeCard: PublicUserJSON.cardEncoder(links: mediaLinks))
        self.userIndex = userIndex
        let groupIndex = GroupIndex(cellSize: configuration.geoCellSize, sports: sports)
        self.groupIndex = groupIndex
        let peopleCache = PeopleCache()
        self.peopleCache = peopleCache
        let safety = SafetyStore(database: database)
        let blocks = Blocks(cache: peopleCache, safety: safety)
        let write = Writer(database: database, feed: changes)
        self.write = write
        var jobStore = JobStore(database: database)
        if let queueClock { jobStore.clock = queueClock }
        self.jobStore = jobStore
        let notifier = Notifier(jobs: jobStore, accounts: accountStore)
        self.notifier = notifier
        let scheduler = Scheduler(jobs: jobStore)
        self.scheduler = scheduler
        let reminders = Reminders(jobs: jobStore, scheduler: scheduler, events: eventStore, write: write, clock: clock)
        self.reminders = reminders
        let recordStore = RecordStore(database: database)
        let playerStore = PlayerStore(database: database)
        self.players = Players(store: playerStore, accounts: accountStore, sports: sports, write: write, clock: clock)
        self.staff = StaffService(store: StaffStore(database: database), sessions: sessionStore, write: write, clock: clock)
        let substituteStore = SubstituteStore(database: database)
        let teams = Teams(
            store: TeamStore(database: database), events: eventStore, notifier: notifier, scheduler: scheduler, blocks: blocks,
            access: eventAccess, write: write, clock: clock)
        self.teams = teams
        let results = Results(
            store: ResultStore(database: database), teams: TeamStore(database: database), events: eventStore, players: playerStore,
            accounts: accountStore, notifier: notifier, scheduler: scheduler, access: eventAccess, blocks: blocks, write: write,
            clock: clock)
        self.results = results
        let ledger = Ledger(
            database: database, store: LedgerStore(database: database), events: eventStore, groups: groupStore, accounts: accountStore,
            access: eventAccess,
            notifier: notifier, scheduler: scheduler, write: write, clock: clock)
        self.ledger = ledger
        self.cards = CardPayments(
            stripe: configuration.stripe.map { StripeClient(settings: $0, client: httpClient) },
            store: CardPaymentStore(database: database),
            ledger: ledger, accounts: accountStore, write: write, clock: clock)
        let events = EventService(
            database: database, store: eventStore, accounts: accountStore, sports: sports, notifier: notifier, reminders: reminders,
            scheduler: scheduler,
            series: seriesStore, write: write, clock: clock, media: attachments, records: recordStore, players: playerStore,
            groups: groupStore, teams: teams, substituteRequests: substituteStore, ledger: ledger,
            lateCancel: TimeInterval(configuration.lateCancelHours) * 3_600,
            offerWindow: TimeInterval(configuration.waitlistOfferHours) * 3_600,
            offerTime: TimeInterval(configuration.waitlistOfferMinutes) * 60)
        let series = SeriesService(
            store: seriesStore, events: events, eventStore: eventStore, scheduler: scheduler, groups: groupStore, notifier: notifier,
            sports: sports, blocks: blocks,
            write: write, clock: clock, horizon: TimeInterval(configuration.seriesHorizonDays) * 86_400)
        self.series = series
        self.events = events
        let substitutes = Substitutes(
            store: substituteStore, events: events, index: userIndex, sports: sports, blocks: blocks, access: eventAccess,
            accounts: accountStore, notifier: notifier, scheduler: scheduler, write: write, clock: clock)
        self.substitutes = substitutes
        let groups = GroupService(
            store: groupStore, index: groupIndex, accounts: accountStore, sports: sports, notifier: notifier, media: attachments,
            events: events,
            blocks: blocks, ledger: ledger, write: write, clock: clock)
        self.groups = groups
        let known = KnownSignIns(store: KnownSignInStore(database: database))
        let refusals = RefusalCounts(clock: clock)
        self.refusals = refusals
        let abuse = AbuseService(
            store: AbuseStore(database: database), staff: StaffStore(database: database), refusals: refusals, write: write, clock: clock)
        self.abuse = abuse
        var accountService = AccountService(
            database: database, accounts: accountStore, sessions: sessionStore, hasher: hasher, policy: policy,
            throttle: AttemptThrottle(
                attempts: attempts, clock: clock, maxAttempts: configuration.loginMaxFailures, window: configuration.loginWindow),
            registrations: configuration.registerMaxPerAddress == 0
                ? nil
                : AttemptThrottle(
                    attempts: attempts, clock: clock, maxAttempts: configuration.registerMaxPerAddress,
                    window: configuration.registerWindow,
                    code: "too_many_registrations", message: Sentence("Too many accounts were made from this address; try again later.")
                ),
            events: events, tokens: tokens, sports: sports, write: write, clock: clock, tokenTTL: configuration.tokenTTL,
            media: attachments,
            identities: IdentityStore(database: database),
            verifier: IdentityVerifier(
                providers: configuration.identityProviders, facebook: configuration.facebookGraph, client: httpClient, clock: clock),
            known: known, groups: groups
        )
        accountService.abuse = abuse
        self.accounts = accountService
        let codes = EmailCodeService(
            accounts: accountStore, sessions: sessionStore, identities: IdentityStore(database: database), codes: EmailCodeStore(),
            jobs: jobStore, hasher: hasher, policy: policy,
            requestsPerEmail: AttemptThrottle(
                attempts: attempts, clock: clock, maxAttempts: 5, window: 3_600,
                code: "too_many_codes", message: Sentence("Too many codes were asked for this email from here; try again later.")),
            requestsPerInbox: AttemptThrottle(
                attempts: attempts, clock: clock, maxAttempts: 12, window: 3_600,
                code: "too_many_codes", message: Sentence("Too many codes were asked for this email; try again later.")),
            requestsPerAddress: AttemptThrottle(
                attempts: attempts, clock: clock, maxAttempts: 30, window: 3_600,
                code: "too_many_codes", message: Sentence("Too many codes were asked for from this address; try again later.")),
            guesses: AttemptThrottle(
                attempts: attempts, clock: clock, maxAttempts: configuration.loginMaxFailures, window: configuration.loginWindow,
                code: "too_many_attempts", message: Sentence("Too many wrong codes; try again later.")),
            dailyGuesses: AttemptThrottle(
                attempts: attempts, clock: clock, maxAttempts: 30, window: 86_400,
                code: "too_many_attempts", message: Sentence("Too many wrong codes for this email today; try again tomorrow.")),
            known: known, write: write, clock: clock, mailEnabled: configuration.mail != nil
        )
        self.codes = codes
        self.showingUp = ShowingUp(
            store: recordStore, events: eventStore, blocks: blocks, access: eventAccess, database: database, write: write, clock: clock)
        self.calendarFeeds = CalendarFeeds(accounts: accountStore, events: eventStore, write: write, clock: clock)
        self.eventSearch = EventSearch(
            database: database, store: eventStore, index: eventIndex, attendance: attendanceCache,
            access: eventAccess, groups: groupStore, blocks: blocks, sports: sports, clock: clock,
            cardsFromDatabase: configuration.nearbyCardsFromDatabase)
        let inbox = InboxStore(database: database)
        self.inbox = inbox
        let push = configuration.push
        var notifications = NotificationService(
            store: inbox, access: eventAccess, clock: clock, endpoints: PushEndpointPolicy(allowsLoopback: push.allowsLoopback))
        self.invitations = InvitationService(
            database: database, events: events, store: eventStore, accounts: accountStore, invitations: InvitationStore(),
            notifier: notifier,
            access: eventAccess, groups: groupStore, sports: sports, write: write, clock: clock,
            dailyLimit: configuration.inviteDailyLimit
        )
        // Pushes: HTTP/2 where the service speaks it (APNs), trusting PUSH_CA_FILE besides the system's authorities.
        let pushClient = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: push.tls, redirectConfiguration: .disallow))
        self.pushClient = pushClient
        let (channels, vapid) = try await push.channels(
            configuration, database: database, webhookClient: httpClient, pushClient: pushClient)
        notifications.webPushKey = vapid?.publicKey
        for (platform, channel, settings) in [
            ("iPhones", channels.apns, "APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID, APNS_TOPIC"),
            ("Android phones", channels.fcm, "FCM_SERVICE_ACCOUNT_FILE"), ("browsers", channels.webPush, "VAPID_SUBJECT"),
        ]
        where channel == nil {
            logger.warning(
                "\(platform) get no pushes\(channels.webhook == nil ? "" : " of their own (the webhook gateway takes them)"): set \(settings)"
            )
        }
        self.channels = channels
        self.notifications = notifications
        let mailer: MailTransport? =
            switch configuration.mail {
            case .smtp(let settings): .smtp(try SMTPMailer(settings: settings))
            case .log: .log(logger)
            case nil: nil
            }
        self.mailer = mailer
        let chatStore = ChatStore(database: database)
        self.chatStore = chatStore
        let roomStore = RoomStore(database: database)
        self.rooms = RoomService(
            store: roomStore, chat: chatStore, reads: ReadMarkerStore(database: database), safety: safety, accounts: accountStore,
            write: write, clock: clock)
        let presenceStore = PresenceStore(database: database)
        self.chat = ChatService(
            database: database, store: chatStore, reads: ReadMarkerStore(database: database), presence: presenceStore,
            presenceWrites: ChatService.presenceWrites(presenceStore, clock: SystemClock()),
            subscribing: ChatService.subscribing(chatStore), blockLists: ChatService.blockLists(safety), safety: safety, rooms: roomStore,
            events: eventStore, notifier: notifier, write: write, clock: clock,
            limiter: RateLimiter(limit: configuration.chatRateLimit, per: configuration.chatRateWindow, clock: clock), media: attachments,
            access: eventAccess, scheduler: scheduler
        )
        let polls = Polls(
            chat: chat, store: chatStore, safety: safety, events: events, series: series, invitations: invitations, notifier: notifier,
            write: write, clock: clock)
        self.polls = polls
        let socketWatch = SocketWatch(
            period: SocketWatch.period(stallTimeout: configuration.webSocketTimes.stall, pingInterval: configuration.webSocketTimes.ping))
        let hub = ChatHub(
            chat: chat, rooms: rooms, inbox: notifications, accounts: accounts, links: mediaLinks, sockets: socketWatch, logger: logger)
        self.hub = hub
        // Every socket is told when writes stop and resume.
        database.observeWritability { [hub] writable, epoch in hub.databaseTurned(writable: writable, epoch: epoch) }
        let (writable, epoch) = database.writability
        hub.databaseTurned(writable: writable, epoch: epoch)
        self.schedulerLag = SchedulerLag(bound: .milliseconds(Int64(configuration.overloadLag * 1_000)))
        self.people = PeopleService(
            database: database, index: userIndex, cache: peopleCache, accounts: accountStore, events: eventStore, safety: safety,
            chat: chatStore, media: mediaStore, blocks: blocks,
            access: eventAccess, sports: sports, write: write, clock: clock
        )
        let mediaWorkers = NIOThreadPool(numberOfThreads: configuration.mediaWorkers)
        mediaWorkers.start()
        self.mediaWorkers = mediaWorkers
        self.media = MediaService(
            media: mediaStore, blobs: blobs, write: write, clock: clock,
            settings: .init(
                maxBytes: configuration.mediaMaxBytes, maxPixels: configuration.mediaMaxPixels,
                uploadsPerHour: configuration.mediaUploadsPerHour,
                maxBytesPerUser: configuration.mediaMaxBytesPerUser, minUploadRate: configuration.mediaMinUploadRate,
                uploadGrace: configuration.mediaUploadGrace,
                uploadTimeout: configuration.mediaUploadTimeout),
            workers: mediaWorkers, logger: logger
        )
        let moderation = ModerationService(
            store: ModerationStore(database: database, clock: clock), staff: StaffStore(database: database), sessions: sessionStore,
            accounts: accountStore, events: events, eventStore: eventStore, groups: groups, chat: chat, media: attachments,
            records: recordStore, known: KnownSignInStore(database: database), notifier: notifier, scheduler: scheduler, write: write,
            clock: clock, deletion: accountService)
        self.moderation = moderation
        self.staffJobs = StaffJobs(jobs: jobStore, staff: StaffStore(database: database), write: write, clock: clock)
        let exports = ExportService(
            store: ExportStore(database: database), staff: StaffStore(database: database), accounts: accountStore, blobs: blobs,
            scheduler: scheduler, notifier: notifier, write: write, clock: clock,
            secret: Array(try await SecretStore(database: database).secret("export_url_key").utf8),
            mailLinks: mailer == nil || configuration.publicURL.isEmpty ? nil : configuration.publicURL)
        self.exports = exports
        let scheduledWork = ScheduledWork(
            reminders: reminders, events: events, series: series, moderation: moderation, exports: exports, teams: teams,
            results: results, substitutes: substitutes, polls: polls, ledger: ledger)
        self.scheduledWork = scheduledWork
        self.workers = (0..<configuration.effectiveJobWorkers).map { index in
            JobWorker(
                name: "\(changes.instanceID)-\(index)", jobs: jobStore, inbox: inbox, safety: safety, access: eventAccess,
                scheduled: scheduledWork, channels: channels, mailer: mailer, codes: codes, write: write, clock: clock, logger: logger,
                settings: .init(
                    pollInterval: configuration.jobPollInterval, lease: configuration.jobLease, maxAttempts: configuration.jobMaxAttempts,
                    retryBase: configuration.jobRetryBase))
        }
        self.sync = CacheSync(
            database: database, events: eventStore, accounts: accountStore, groups: groupStore, eventIndex: eventIndex,
            userIndex: userIndex,
            groupIndex: groupIndex, attendance: attendanceCache, memberships: membershipCache, people: peopleCache, bus: changes.bus,
            clock: clock, logger: logger
        )
        registerChangeHandlers()
    }
}
