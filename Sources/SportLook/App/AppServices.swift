import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// Everything a running SportLook instance is made of, built once by
/// ``buildApplication(_:clock:logger:)`` and shared by routes and services.
public final class AppServices: Sendable {
    public let configuration: AppConfiguration
    public let clock: any AppClock
    public let logger: Logger
    public let database: Database
    public let resources: Resources
    public let hasher: PasswordHasher
    public let sports: SportCatalog
    public let tokens: TokenAuthenticator
    public let bus: Bus
    public let routes = RouteTable()
    let accountStore: AccountStore
    let accounts: AccountService

    init(configuration: AppConfiguration, clock: any AppClock, logger: Logger, database: Database, resources: Resources) async throws {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.database = database
        self.resources = resources
        self.sports = try await SportCatalog.load(database)
        self.hasher = PasswordHasher(cost: configuration.bcryptCost)
        let policy = PasswordPolicy(commonPasswords: (try? String(contentsOf: resources.seed("common-passwords.txt"), encoding: .utf8)) ?? "")
        let bus = Bus(database: database, logger: logger)
        self.bus = bus
        let accountStore = AccountStore(database: database)
        self.accountStore = accountStore
        let tokens = TokenAuthenticator(accounts: accountStore, clock: clock)
        self.tokens = tokens
        self.accounts = AccountService(
            database: database, accounts: accountStore, hasher: hasher, policy: policy,
            throttle: LoginThrottle(accounts: accountStore, clock: clock, maxFailures: configuration.loginMaxFailures, window: configuration.loginWindow),
            tokens: tokens, sports: sports, bus: bus, clock: clock, tokenTTL: configuration.tokenTTL
        )
    }

    /// The long-running parts, in start order (they stop in reverse order).
    var backgroundServices: [any Service] {
        [Shutdown(services: self), bus, TokenUseFlusher(tokens: tokens), BusConsumers(services: self)]
    }

    /// Whether every in-memory index is warm.
    public var isWarm: Bool { true }

    /// Returns once every in-memory index is warm.
    public func waitUntilWarm() async throws {}

    /// Closes what the services hold open.
    func close() async {
        await hasher.shutdown()
        await database.close()
    }

    /// Stopped last: closes the database once everything else has stopped.
    struct Shutdown: Service {
        let services: AppServices
        func run() async throws {
            try? await gracefulShutdown()
            await services.close()
        }
    }
}

/// Applies bus messages to this instance's caches.
struct BusConsumers: Service {
    let services: AppServices

    func run() async throws {
        let messages = services.bus.subscribe()
        try? await cancelWhenGracefulShutdown {
            for await message in messages {
                switch message {
                case .session(let id): services.tokens.forget(tokenID: id)
                default: break
                }
            }
        }
    }
}
