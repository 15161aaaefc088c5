import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import SportLook
import Synchronization
import UnixSignals

@main
struct SportLookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sportlook",
        abstract: "The SportLook server: sport events, people nearby, chat and notifications.",
        subcommands: [Serve.self, Migrate.self, Seed.self, Jobs.self, Reports.self, MediaCommand.self, Push.self, Staff.self, Audit.self]
    )
}

/// Settings shared by every command: flags override the environment variables of the same name.
struct SettingOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "DATABASE_URL: sqlite:PATH, sqlite::memory: or postgres://user:pass@host:port/db")
    var databaseURL: String?

    @Option(name: .customLong("log-level"), help: "LOG_LEVEL: trace, debug, info, notice, warning, error, critical")
    var logLevel: String?

    /// The configuration: environment first, then these flags.
    func configuration(extra: [String: String?] = [:]) throws -> AppConfiguration {
        var environment = ProcessInfo.processInfo.environment
        let flags: [String: String?] = ["DATABASE_URL": databaseURL, "LOG_LEVEL": logLevel].merging(extra) { $1 }
        for (name, value) in flags { if let value { environment[name] = value } }
        do {
            return try AppConfiguration(environment: environment)
        } catch let error as ConfigurationError {
            throw ValidationError("configuration: \(error)")
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP and WebSocket server (applies pending migrations first).")

    @OptionGroup var settings: SettingOptions
    @Option(help: "HOST: address to bind") var host: String?
    @Option(help: "PORT: port to bind") var port: String?
    @Option(name: .customLong("bcrypt-cost"), help: "BCRYPT_COST: 4…31") var bcryptCost: String?
    @Option(name: .customLong("token-ttl"), help: "TOKEN_TTL: e.g. 30d, 12h") var tokenTTL: String?
    @Option(name: .customLong("cors-allowed-origins"), help: "CORS_ALLOWED_ORIGINS: comma-separated origins, or *") var corsAllowedOrigins:
        String?
    @Option(name: .customLong("job-workers"), help: "JOB_WORKERS: background job workers (0 disables)") var jobWorkers: String?
    @Flag(name: .customLong("no-migrate"), help: "Refuse to start when migrations are pending instead of applying them.") var noMigrate =
        false

    func run() async throws {
        let configuration = try settings.configuration(extra: [
            "HOST": host, "PORT": port, "BCRYPT_COST": bcryptCost, "TOKEN_TTL": tokenTTL,
            "CORS_ALLOWED_ORIGINS": corsAllowedOrigins, "JOB_WORKERS": jobWorkers,
        ])
        let logger = makeLogger(configuration)
        if let loops = sizeEventLoopsToAffinity() {
            logger.info("event loops sized to the CPUs this process may use", metadata: ["loops": "\(loops)"])
        }
        let application: SportLookApplication
        do {
            application = try await buildApplication(configuration, logger: logger, migrate: !noMigrate)
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(1)
        }
        logger.info(
            "SportLook listening",
            metadata: ["address": "\(configuration.host):\(configuration.port)", "database": "\(configuration.database)"])
        // SIGTERM/SIGINT start a graceful shutdown; whatever has not stopped 20 s
        // later is cancelled, so a wedged dependency cannot keep the process alive.
        var group = ServiceGroupConfiguration(services: [application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(20)
        group.maximumCancellationDuration = .seconds(5)
        try await ServiceGroup(configuration: group).run()
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending migrations and load the sports catalogue.")

    @OptionGroup var settings: SettingOptions

    func run() async throws {
        let configuration = try settings.configuration()
        try await withTool(configuration) { tool in
            let applied = try await tool.migrate()
            print(applied.isEmpty ? "schema up to date" : "applied migrations \(applied.map(String.init).joined(separator: ", "))")
            print("sports catalogue: \(try await tool.seedSports()) sports")
        }
    }
}

struct Seed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Load the sports catalogue, and optionally a deterministic demo data set.")

    @OptionGroup var settings: SettingOptions
    @Flag(help: "Also create demo users and events (clustered around real cities).") var demo = false
    @Option(help: "Demo users to create.") var users = 1_000
    @Option(help: "Demo events to create.") var events = 10_000
    @Option(help: "Random seed: the same seed makes the same data.") var seed: UInt64 = 1
    @Option(help: "City centres the demo events are scattered around: the 50 real ones first, then made-up ones spread over the globe.")
    var cities = 50
    @Option(help: "Demo groups to create (public and listed, 5 to 50 members each).") var groups = 0
    @Option(
        name: .customLong("members-only"),
        help: "The share of demo events (0…1) that are members-only games of a random group (needs --groups).") var membersOnly = 0.0

    func validate() throws {
        guard users >= 1, users <= 10_000_000 else { throw ValidationError("--users must be 1…10,000,000") }
        guard cities >= 1, cities <= 100_000 else { throw ValidationError("--cities must be 1…100,000") }
        guard events >= 0, events <= 10_000_000 else { throw ValidationError("--events must be 0…10,000,000") }
        guard groups >= 0, groups <= 1_000_000 else { throw ValidationError("--groups must be 0…1,000,000") }
        guard membersOnly >= 0, membersOnly <= 1, membersOnly == 0 || groups > 0 else {
            throw ValidationError("--members-only must be 0…1, with --groups")
        }
    }

    func run() async throws {
        let configuration = try settings.configuration()
        try await withTool(configuration) { tool in
            _ = try await tool.migrate()
            print("sports catalogue: \(try await tool.seedSports()) sports")
            if demo {
                let progress = ProgressReporter()
                let report = try await tool.seedDemo(
                    users: users, events: events, cities: cities, groups: groups, membersOnly: membersOnly, seed: seed
                ) { done, total, phase in
                    progress.update(phase: phase, done: done, total: total)
                }
                progress.finish()
                print(
                    "demo data: \(report.users) users, \(report.events) events (\(report.membersOnly) members-only), \(report.groups) groups around \(cities) cities in \(String(format: "%.1f", report.seconds)) s (seed \(seed)); every demo password is sportlook-demo"
                )
            }
        }
    }
}

struct Push: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "push", abstract: "Push notifications.", subcommands: [Test.self])

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a test notification to each of a user's devices and print each channel's answer."
        )
        @OptionGroup var settings: SettingOptions
        @Option(help: "The user's id.") var user: String

        func run() async throws {
            guard let id = UUID(uuidString: user) else { throw ValidationError("--user must be a user id (a UUID)") }
            let configuration = try settings.configuration()
            try await withTool(configuration) { tool in
                for line in try await tool.pushTest(user: id) { print(line) }
            }
        }
    }
}

struct Jobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the job queue: counts by state and kind, and the oldest queued job's age.",
        subcommands: [RetryDead.self]
    )

    @OptionGroup var settings: SettingOptions

    func run() async throws {
        let configuration = try settings.configuration()
        try await withTool(configuration) { tool in print(try await tool.jobSummary()) }
    }

    struct RetryDead: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "retry-dead", abstract: "Queue dead jobs again (all, or one kind).")
        @OptionGroup var settings: SettingOptions
        @Option(
            help:
                "Only jobs of this kind (invitation, invitation_accepted, waitlist_promoted, event_updated, event_cancelled, chat_message, mail)."
        )
        var kind: String?

        func run() async throws {
            let configuration = try settings.configuration()
            try await withTool(configuration) { tool in
                let count = try await tool.retryDeadJobs(kind: kind)
                print("queued \(count) dead job\(count == 1 ? "" : "s") again")
            }
        }
    }
}

struct Reports: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List open reports for moderators, oldest first, then names that mix look-alike scripts.")
    @OptionGroup var settings: SettingOptions
    @Option(help: "At most this many.") var limit = 100

    func run() async throws {
        let configuration = try settings.configuration()
        try await withTool(configuration) { tool in
            let reports = try await tool.openReports(limit: limit)
            print(reports.isEmpty ? "no open reports" : reports.joined(separator: "\n"))
            let names = try await tool.flaggedNames(limit: limit)
            print(
                names.isEmpty
                    ? "no names mixing look-alike scripts" : (["names mixing look-alike scripts:"] + names).joined(separator: "\n"))
        }
    }
}

struct MediaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "media", abstract: "Uploaded media.", subcommands: [Collect.self])

    struct Collect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gc", abstract: "Delete uploads nobody put to use within a day (the server does it every ten minutes too).")
        @OptionGroup var settings: SettingOptions

        func run() async throws {
            let configuration = try settings.configuration()
            try await withTool(configuration) { tool in
                let removed = try await tool.collectUnattachedMedia()
                print(
                    "removed \(removed.media) unattached upload\(removed.media == 1 ? "" : "s") and \(removed.files) stored file\(removed.files == 1 ? "" : "s")"
                )
            }
        }
    }
}

func makeLogger(_ configuration: AppConfiguration) -> Logger {
    var logger = Logger(label: "sportlook") { LogLines(label: $0) }
    logger.logLevel = configuration.logLevel
    return logger
}

/// Opens the database for a one-off command and closes it afterwards.
func withTool(_ configuration: AppConfiguration, _ body: (AdminTool) async throws -> Void) async throws {
    let tool: AdminTool
    do {
        tool = try await AdminTool.open(configuration, logger: makeLogger(configuration))
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        throw ExitCode(1)
    }
    do {
        try await body(tool)
    } catch {
        await tool.close()
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        throw ExitCode(1)
    }
    await tool.close()
}

/// A progress bar on a terminal, plain lines otherwise.
final class ProgressReporter: Sendable {
    private let isTerminal = isatty(STDOUT_FILENO) == 1
    private let last = Mutex<(line: Date, phase: String)>((.distantPast, ""))

    func update(phase: String, done: Int, total: Int) {
        last.withLock { last in
            let lastLine = last.line
            let lastPhase = last.phase
            let now = Date()
            let finished = done >= total
            guard finished || phase != lastPhase || now.timeIntervalSince(lastLine) >= (isTerminal ? 0.1 : 2) else { return }
            last.line = now
            let fraction = total == 0 ? 1 : Double(done) / Double(total)
            if isTerminal {
                if phase != lastPhase && !lastPhase.isEmpty { print("") }
                let width = 30
                let filled = Int(fraction * Double(width))
                let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
                print(
                    "\r\(phase.padding(toLength: 8, withPad: " ", startingAt: 0)) \(bar) \(Int(fraction * 100))% \(done)/\(total)",
                    terminator: "")
                FileHandle.standardOutput.synchronizeFile()
            } else {
                print("\(phase): \(done)/\(total) (\(Int(fraction * 100))%)")
            }
            last.phase = phase
        }
    }

    func finish() {
        if isTerminal { print("") }
    }
}

struct Staff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Staff roles: list them, or give and take moderator and admin (each recorded in the audit log).",
        subcommands: [Grant.self, Revoke.self]
    )
    @OptionGroup var settings: SettingOptions

    func run() async throws {
        try await withTool(try settings.configuration()) { tool in
            for line in try await tool.staffList() { print(line) }
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give an account a staff role: moderator or admin.")
        @OptionGroup var settings: SettingOptions
        @Argument(help: "The account's email.") var email: String
        @Argument(help: "moderator or admin.") var role: String
        @Option(help: "Why (kept in the audit log).") var reason: String

        func run() async throws {
            try await withTool(try settings.configuration()) { tool in
                print(try await tool.grantStaff(role, to: email, reason: reason))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take an account's staff role away; its sessions end.")
        @OptionGroup var settings: SettingOptions
        @Argument(help: "The account's email.") var email: String
        @Option(help: "Why (kept in the audit log).") var reason: String

        func run() async throws {
            try await withTool(try settings.configuration()) { tool in
                print(try await tool.revokeStaff(from: email, reason: reason))
            }
        }
    }
}

struct Audit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The audit log of staff actions, newest first.")
    @OptionGroup var settings: SettingOptions
    @Option(help: "Only this action (staff_granted, staff_revoked, …).") var action: String?
    @Option(help: "Only actions on this target's id.") var target: String?
    @Option(help: "At most this many lines (1–1000).") var limit = 100

    func run() async throws {
        try await withTool(try settings.configuration()) { tool in
            for line in try await tool.auditLog(action: action, target: target, limit: limit) { print(line) }
        }
    }
}
