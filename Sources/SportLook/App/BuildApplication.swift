import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The application: what `sportlook serve` runs and every test builds.
public typealias SportLookApplication = Application<RouterResponder<AppRequestContext>>

/// Builds the application from a configuration: opens and migrates the
/// database, loads the catalogue, wires services and routes.
/// - Parameters:
///   - configuration: The settings.
///   - clock: The time source (tests pass one they can move).
///   - logger: Where to log (defaults to a logger at the configured level).
///   - migrate: Apply pending migrations first (otherwise pending ones stop start-up).
public func buildApplication(
    _ configuration: AppConfiguration, clock: any AppClock = SystemClock(), logger: Logger? = nil, migrate: Bool = true
) async throws -> SportLookApplication {
    try await makeApplication(configuration, clock: clock, logger: logger, migrate: migrate).application
}

/// ``buildApplication(_:clock:logger:migrate:)`` with the services behind it, for tests and tools.
/// - Parameters:
///   - clock: The service's time (what is stored, what is open or over).
///   - queueClock: When queued jobs are due and leases end; the wall clock unless a test
///     holds it (scheduled work — reminders — then runs when the test moves it).
public func makeApplication(
    _ configuration: AppConfiguration, clock: any AppClock = SystemClock(), queueClock: (any AppClock)? = nil,
    logger: Logger? = nil, migrate: Bool = true
) async throws -> (application: SportLookApplication, services: AppServices) {
    var logger = logger ?? Logger(label: "sportlook") { LogLines(label: $0) }
    logger.logLevel = configuration.logLevel
    // Metrics go to Prometheus from the first request on.
    _ = Observability.registry
    let resources = try Resources.locate()
    let database = try await Database.open(
        configuration.database, poolSize: configuration.databasePoolSize, timeout: configuration.databaseTimeout,
        writeQueue: configuration.databaseWriteQueue,
        writeWait: configuration.databaseWriteWait, readReplicas: configuration.databaseReadReplicas,
        readMaxLag: configuration.readMaxLag, clock: clock, logger: logger)
    do {
        try await prepare(database, resources: resources, migrate: migrate, logger: logger)
        let services = try await AppServices(
            configuration: configuration, clock: clock, queueClock: queueClock, logger: logger, database: database, resources: resources)
        let router = try makeRouter(services)
        let application = Application(
            router: router,
            server: .sportLook(webSocketRouter: makeWebSocketRouter(services)),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "SportLook"),
            services: services.backgroundServices + metricsListener(configuration, logger: logger),
            logger: logger
        )
        return (application, services)
    } catch {
        await database.close()
        throw error
    }
}

/// The `METRICS_PORT` listener, when configured: `/metrics` alone, on its own address.
func metricsListener(_ configuration: AppConfiguration, logger: Logger) -> [any Service] {
    guard let port = configuration.metricsPort else { return [] }
    return [
        Application(
            router: OperationsController.metricsRouter(),
            configuration: .init(address: .hostname(configuration.metricsHost, port: port), serverName: "SportLook metrics"),
            logger: logger
        )
    ]
}

/// Checks (and applies) migrations and loads the sports catalogue.
func prepare(_ database: Database, resources: Resources, migrate: Bool, logger: Logger) async throws {
    let migrator = try Migrator(database: database, resources: resources, logger: logger)
    if migrate {
        try await migrator.migrate()
    } else {
        let pending = try await migrator.verify()
        guard pending.isEmpty else {
            throw MigrationError(
                description: "migrations \(pending.map(String.init).joined(separator: ", ")) are not applied; run `sportlook migrate`")
        }
    }
    try await SportStore.seed(database, from: resources.seed("sports.json"))
}

func makeRouter(_ services: AppServices) throws -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(
        middleware: EdgeMiddleware(
            cors: CORSPolicy(allowed: services.configuration.corsAllowedOrigins, routes: services.routes),
            errors: ErrorResponses(routes: services.routes, refusals: services.refusals),
            overload: OverloadGate(lag: services.schedulerLag),
            addresses: ClientAddress(trustedProxies: services.configuration.trustedProxies),
            limits: RateLimits(
                globalPerSecond: services.configuration.globalRateLimit, perCallerPerMinute: services.configuration.userRateLimit,
                clock: services.clock, tokens: services.tokens),
            auth: TokenAuth(tokens: services.tokens, origins: OriginPolicy(allowed: services.configuration.corsAllowedOrigins)),
            metrics: RequestMetrics()
        ))

    let openAPI = try Data(contentsOf: services.resources.root.appendingPathComponent("openapi.yaml"))
    let readiness = Readiness(database: services.database, conditions: [{ ("indexes", services.isWarm) }])
    OperationsController(readiness: readiness, openAPI: ByteBuffer(bytes: openAPI), metricsToken: services.configuration.metricsToken)
        .addRoutes(to: RouteRegistrar(group: router, prefix: "", table: services.routes))

    let v1 = router.group("v1")
    let publicRoutes = RouteRegistrar(group: v1, prefix: "/v1", table: services.routes)
    // Every route that names an event (or an event's room) first asks whether the
    // caller may see it: a members-only event is a 404 to everyone outside its group.
    let access = services.eventAccess
    let authenticated = RouteRegistrar(
        group: v1.group(context: AuthenticatedContext.self), prefix: "/v1", table: services.routes,
        guards: [
            RouteGuard(path: "/v1/events/:id") { context in try await access.require(try context.uuid("id", .event), for: context.userID)
            },
            RouteGuard(path: "/v1/rooms/:id") { context in try await access.requireRoom(try context.uuid("id", .room), for: context.userID)
            },
            RouteGuard(path: "/v1/series/:id") { context in
                try await access.requireSeries(try context.uuid("id", .series), for: context.userID)
            },
            // Staff routes are no route at all to anyone who is not staff now.
            StaffController.guardRoute(services.staff),
        ])

    let links = services.mediaLinks
    let accounts = AccountsController(accounts: services.accounts, codes: services.codes, sports: services.sports, links: links)
    accounts.addPublicRoutes(to: publicRoutes)
    accounts.addRoutes(to: authenticated)
    EventsController(
        events: services.events, search: services.eventSearch, showingUp: services.showingUp, sports: services.sports, links: links
    ).addRoutes(to: authenticated)
    ShowingUpController(showingUp: services.showingUp).addRoutes(to: authenticated)
    TeamsController(teams: services.teams).addRoutes(to: authenticated)
    ResultsController(results: services.results, sports: services.sports).addRoutes(to: authenticated)
    SubstitutesController(substitutes: services.substitutes).addRoutes(to: authenticated)
    LedgerController(ledger: services.ledger, cards: services.cards).addRoutes(to: authenticated)
    let cards = CardPaymentsController(cards: services.cards)
    cards.addRoutes(to: authenticated)
    cards.addPublicRoutes(to: publicRoutes)
    PlayerController(players: services.players).addRoutes(to: authenticated)
    GroupsController(groups: services.groups, sports: services.sports, links: links).addRoutes(to: authenticated)
    SeriesController(series: services.series, sports: services.sports, links: links).addRoutes(to: authenticated)
    let calendars = CalendarController(events: services.events, feeds: services.calendarFeeds, clock: services.clock)
    calendars.addRoutes(to: authenticated)
    calendars.addPublicRoutes(to: publicRoutes)
    let inbox = NotificationsController(invitations: services.invitations, inbox: services.notifications, links: links)
    inbox.addPublicRoutes(to: publicRoutes)
    inbox.addRoutes(to: authenticated)
    ChatController(chat: services.chat, rooms: services.rooms, links: links, clock: services.clock).addRoutes(to: authenticated)
    PollsController(polls: services.polls, links: links).addRoutes(to: authenticated)
    PeopleController(people: services.people, sports: services.sports, links: links).addRoutes(to: authenticated)
    StaffController(
        staff: services.staff, moderation: services.moderation, exports: services.exports, jobs: services.staffJobs, links: links,
        abuse: services.abuse
    ).addRoutes(to: authenticated)
    let exports = ExportsController(exports: services.exports)
    exports.addRoutes(to: authenticated)
    exports.addPublicRoutes(to: publicRoutes)
    AppealsController(accounts: services.accounts, moderation: services.moderation).addPublicRoutes(to: publicRoutes)
    let media = MediaController(media: services.media, links: links)
    media.addRoutes(to: authenticated)
    media.addPublicRoutes(to: RouteRegistrar(group: router, prefix: "", table: services.routes))
    webSocketEndpoint(services).addFallbackRoute(to: publicRoutes)
    if services.configuration.webClient {
        let configuration = services.configuration
        let web: WebClientController
        do {
            web = try WebClientController(
                folder: services.resources.webClient,
                settings: .init(
                    tileURL: configuration.tileURL, tileAttribution: configuration.effectiveTileAttribution,
                    mediaOrigin: configuration.mediaPublicURL.isEmpty ? nil : WebClientController.origin(of: configuration.mediaPublicURL),
                    providers: configuration.webSignIn.map {
                        .init(provider: $0.provider.rawValue, clientID: $0.clientID, authorizeURL: $0.authorizeURL.absoluteString)
                    }
                ))
        } catch {
            throw ConfigurationError(
                setting: "WEB_CLIENT",
                message:
                    "cannot read the web client in \(services.resources.webClient.path) (\(error.localizedDescription)); set WEB_CLIENT=off to serve the API alone"
            )
        }
        web.addRoutes(to: RouteRegistrar(group: router, prefix: "", table: services.routes))
        web.addConsoleRoutes(to: RouteRegistrar(group: router, prefix: "", table: services.routes), staff: services.staff)
    }
    return router
}

func webSocketEndpoint(_ services: AppServices) -> WebSocketEndpoint {
    WebSocketEndpoint(
        tokens: services.tokens, hub: services.hub, chat: services.chat, feed: services.changes,
        origins: OriginPolicy(allowed: services.configuration.corsAllowedOrigins),
        limits: SocketLimits(
            queueFrames: services.configuration.webSocketMaxQueue, queueBytes: services.configuration.webSocketMaxQueueBytes,
            frameRate: services.configuration.webSocketFrameRate, frameBurst: services.configuration.webSocketFrameBurst,
            refusals: services.refusals
        ),
        stallTimeout: services.configuration.webSocketTimes.stall, pingInterval: services.configuration.webSocketTimes.ping,
        clock: services.clock
    )
}

func makeWebSocketRouter(_ services: AppServices) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    webSocketEndpoint(services).addUpgradeRoute(to: router)
    return router
}
