import Foundation
import Logging

/// Everything the service can be configured with, read from environment
/// variables (and `serve` flags, which override them under the same names).
///
/// Every setting is validated at start-up; a bad value stops the service with a
/// message naming the setting (see ``ConfigurationError``).
public struct AppConfiguration: Sendable {
    /// Address to bind (`HOST`, default 127.0.0.1).
    public var host = "127.0.0.1"
    /// Port to bind (`PORT`, default 8080; 0 picks a free port).
    public var port = 8080
    /// Where the data lives (`DATABASE_URL`, default `sqlite:sportlook.sqlite`).
    public var database = DatabaseLocation.sqliteFile("sportlook.sqlite")
    /// bcrypt cost (`BCRYPT_COST`, 4…31, default 12).
    public var bcryptCost = 12
    /// Lifetime of an access token (`TOKEN_TTL`, e.g. `30d`, `12h`, `3600`; default 30 days).
    public var tokenTTL: TimeInterval = 30 * 86_400
    /// Origins allowed by CORS (`CORS_ALLOWED_ORIGINS`, comma-separated, `*` for any; default none).
    public var corsAllowedOrigins: [String] = []
    /// Log level (`LOG_LEVEL`, default info).
    public var logLevel = Logger.Level.info
    /// Background job workers in this process (`JOB_WORKERS`, default 2 on PostgreSQL, 1 on SQLite; 0 disables).
    public var jobWorkers: Int?
    /// Attempts before a job is dead (`JOB_MAX_ATTEMPTS`, default 8).
    public var jobMaxAttempts = 8
    /// How long a claimed job stays leased before another worker may take it (`JOB_LEASE`, default 60s).
    public var jobLease: TimeInterval = 60
    /// How often idle workers look for due jobs when no wake-up arrives (`JOB_POLL_INTERVAL`, default 1s).
    public var jobPollInterval: TimeInterval = 1
    /// First retry delay; each further retry doubles it, with jitter (`JOB_RETRY_BASE`, default 1s).
    public var jobRetryBase: TimeInterval = 1
    /// Push gateway endpoint (`PUSH_GATEWAY_URL`; unset: no push, inbox and sockets only).
    public var pushGatewayURL: URL?
    /// HMAC-SHA256 key for the push gateway signature (`PUSH_GATEWAY_SECRET`).
    public var pushGatewaySecret = ""
    /// Push gateway request timeout (`PUSH_GATEWAY_TIMEOUT`, default 5s).
    public var pushGatewayTimeout: TimeInterval = 5
    /// Longest a request waits for the database before answering 503 (`DATABASE_TIMEOUT`, default 3s).
    public var databaseTimeout: TimeInterval = 3
    /// Maximum PostgreSQL connections in this process (`DATABASE_POOL_SIZE`, default 16).
    public var databasePoolSize = 16
    /// Writes waiting for the database or running at most; beyond, 503 `overloaded`
    /// at once (`DATABASE_WRITE_QUEUE`, default 64; 0: no bound).
    public var databaseWriteQueue = 64
    /// When every write has taken longer than this (its wait included) for 100 ms, a
    /// standing queue, 503 `overloaded` at once for new work while writes are waiting
    /// (`DATABASE_WRITE_WAIT`, default 50ms; 0: no such bound).
    public var databaseWriteWait: TimeInterval = 0.05
    /// How late this process's tasks may run, for 100 ms on end, before new requests
    /// are answered 503 `overloaded` at once (`OVERLOAD_LAG`, default 20ms; 0: never).
    public var overloadLag: TimeInterval = 0.02
    /// Requests per second the whole instance accepts (`RATE_LIMIT_GLOBAL`, default 20000; 0 disables).
    public var globalRateLimit = 20_000
    /// Requests per minute one user (or one address, before login) may make (`RATE_LIMIT_USER`, default 1200; 0 disables).
    public var userRateLimit = 1_200
    /// Failed logins per account or per address (and refused provider tokens per address) in the throttle window before 429 (`LOGIN_MAX_FAILURES`, default 10).
    public var loginMaxFailures = 10
    /// The login throttle window (`LOGIN_WINDOW`, default 15m).
    public var loginWindow: TimeInterval = 15 * 60
    /// Registrations from one address in `registerWindow` (`REGISTER_MAX_PER_ADDRESS`, default 20; 0 disables).
    public var registerMaxPerAddress = 20
    /// The registration throttle window (`REGISTER_WINDOW`, default 1h).
    public var registerWindow: TimeInterval = 3_600
    /// Password hashes waiting or running at most; beyond, 503 with `Retry-After` (`HASH_QUEUE_LIMIT`, default 32).
    public var hashQueueLimit = 32
    /// Whether hashing threads give way to every other thread (Linux's idle scheduling
    /// class). Not read from the environment: only tests turn it off, where the whole
    /// suite keeps both cores busy for seconds on end and an idle-class hash waits longer
    /// than a test client does.
    public var hashingYields = true
    /// Invitations one inviter may send in 24 hours (`INVITE_DAILY_LIMIT`, default 200).
    public var inviteDailyLimit = 200
    /// Frames per second a client may send on one socket, on average (`WS_FRAME_RATE`, default 20).
    public var webSocketFrameRate: Double = 20
    /// Frames a client may send in a burst (`WS_FRAME_BURST`, default 60).
    public var webSocketFrameBurst = 60
    /// Bytes queued for one WebSocket at most (`WS_MAX_QUEUE_BYTES`, default 4 MiB).
    public var webSocketMaxQueueBytes = 4 << 20
    /// Port of a second listener that serves only `/metrics` (`METRICS_PORT`; unset: none).
    public var metricsPort: Int?
    /// Address the metrics listener binds (`METRICS_HOST`, default 127.0.0.1).
    public var metricsHost = "127.0.0.1"
    /// Bearer token that opens `/metrics` on the main port (`METRICS_TOKEN`; unset: not served there).
    public var metricsToken: String?
    /// Peers whose `X-Forwarded-For` names the client (`TRUSTED_PROXIES`, CIDR list; default none).
    public var trustedProxies: [AddressRange] = []
    /// Chat messages one user may send per minute (`CHAT_RATE_LIMIT`, default 60).
    public var chatRateLimit = 60
    /// How often each WebSocket is pinged, at its own phase; a client that sends nothing in the interval after a ping is closed (`WS_PING_INTERVAL`, default 30s).
    public var webSocketPingInterval: TimeInterval = 30
    /// Frames queued for one WebSocket at most (`WS_MAX_QUEUE`, default 1000).
    public var webSocketMaxQueue = 1_000
    /// A socket that takes no frame for this long while frames wait is closed as too slow (`WS_STALL_TIMEOUT`, default 10s).
    public var webSocketStallTimeout: TimeInterval = 10
    /// ``webSocketStallTimeout`` and ``webSocketPingInterval`` as durations, to the millisecond.
    var webSocketTimes: (stall: Duration, ping: Duration) {
        (.milliseconds(Int64(webSocketStallTimeout * 1000)), .milliseconds(Int64(webSocketPingInterval * 1000)))
    }
    /// Cell edge of the spatial indexes in metres (`GEO_CELL_SIZE`, default 1250).
    public var geoCellSize: Double = 1_250
    /// Where nearby pages get event details: `memory` (cached cards, default) or `database` (`NEARBY_CARDS`).
    public var nearbyCardsFromDatabase = false

    /// Where uploaded media are kept (`MEDIA_STORE`): `file:PATH` (default `media`
    /// beside the SQLite file, or `./media` on PostgreSQL) or
    /// `s3://BUCKET?endpoint=URL&region=REGION` with `MEDIA_S3_ACCESS_KEY` and `MEDIA_S3_SECRET_KEY`.
    public var mediaStore = MediaStoreSetting.file(path: nil)
    /// The S3 credentials (`MEDIA_S3_ACCESS_KEY`, `MEDIA_S3_SECRET_KEY`).
    public var mediaS3AccessKey = ""
    public var mediaS3SecretKey = ""
    /// Largest upload in bytes (`MEDIA_MAX_BYTES`, default 10 MB).
    public var mediaMaxBytes = 10_000_000
    /// Largest image in pixels, width × height, checked before decoding (`MEDIA_MAX_PIXELS`, default 40 million).
    public var mediaMaxPixels = 40_000_000
    /// Uploads per user per hour (`MEDIA_UPLOADS_PER_HOUR`, default 60; 0 disables).
    public var mediaUploadsPerHour = 60
    /// Bytes of stored images one person may keep (`MEDIA_MAX_BYTES_PER_USER`, default
    /// 500 MB, counting every variant of every upload; 0 disables).
    public var mediaMaxBytesPerUser = 500_000_000
    /// The slowest an upload's body may arrive, in bytes a second on average once
    /// ``mediaUploadGrace`` has passed (`MEDIA_MIN_UPLOAD_RATE`, default 16384; 408 beyond).
    public var mediaMinUploadRate = 16_384
    /// Seconds an upload's body may take before the minimum rate applies (`MEDIA_UPLOAD_GRACE`, default 10).
    public var mediaUploadGrace: TimeInterval = 10
    /// Seconds a whole upload body may take (`MEDIA_UPLOAD_TIMEOUT`, default 120; 408 beyond).
    public var mediaUploadTimeout: TimeInterval = 120
    /// Days ahead a series' games exist as events (`SERIES_HORIZON`, default 56: eight weeks).
    public var seriesHorizonDays = 56
    /// Leaving a game within this many hours of its start is a late cancellation on the
    /// player's record (`LATE_CANCEL_HOURS`, default 4).
    public var lateCancelHours = 4
    /// In this many hours before the start a freed place is offered to the first in line
    /// rather than given (`WAITLIST_OFFER_HOURS`, default 24; 0: always given).
    public var waitlistOfferHours = 24
    /// How long such an offer holds (`WAITLIST_OFFER_MINUTES`, default 30).
    public var waitlistOfferMinutes = 30
    /// Scheme, host and path prefix media URLs start with (`MEDIA_PUBLIC_URL`, e.g. a CDN
    /// in front of this server; default: paths on this server, `/media/KEY`).
    public var mediaPublicURL = ""
    /// Key signing chat images' links (`MEDIA_URL_SECRET`, at least 32 bytes; default: one
    /// made at random and kept in the database, shared by every instance using it).
    public var mediaURLSecret = ""
    /// Threads decoding and encoding images (`MEDIA_WORKERS`, default: the number of cores).
    public var mediaWorkers = ProcessInfo.processInfo.activeProcessorCount

    /// Sign-in providers whose ID tokens are accepted (`AUTH_<P>_CLIENT_IDS`, and
    /// `AUTH_<P>_JWKS_URL`, `AUTH_<P>_ISSUER` for P in APPLE, GOOGLE, FACEBOOK; a provider
    /// without client ids is off).
    public var identityProviders: [IdentityProviderSettings] = []
    /// Sign-in buttons of the web client: for each provider on, its web client id
    /// (`AUTH_<P>_WEB_CLIENT_ID`, default the first of `AUTH_<P>_CLIENT_IDS`) and
    /// authorization endpoint (`AUTH_<P>_AUTHORIZE_URL`, default the provider's);
    /// Facebook's only with classic Login (`FACEBOOK_APP_SECRET`).
    public var webSignIn: [WebSignIn] = []
    /// Classic Facebook Login (`FACEBOOK_APP_SECRET` with `AUTH_FACEBOOK_CLIENT_IDS`;
    /// `FACEBOOK_GRAPH_URL`, default https://graph.facebook.com).
    public var facebookGraph: FacebookGraphSettings?

    /// Where mail (verification and password reset codes) goes: an SMTP submission
    /// server (`SMTP_URL`, `MAIL_FROM`, `SMTP_CA_FILE`, `SMTP_TIMEOUT`), or the log
    /// (`MAIL_TRANSPORT=log`, for development); unset: no mail, and asking for a code
    /// answers 422 `mail_not_enabled`.
    public var mail: MailSetting?

    /// Pushes straight to Apple's, Google's and the browsers' services (`APNS_*`,
    /// `FCM_*`, `VAPID_*`, `PUSH_CA_FILE`, `PUSH_ALLOW_LOOPBACK`, `PUSH_TIMEOUT`).
    public var push = PushSettings()

    /// Serves the web client (`Public/`) at `/` (`WEB_CLIENT`, `on` or `off`; default on).
    public var webClient = true
    /// Raster map tiles for the web client's map (`TILE_URL`, a `{z}/{x}/{y}` template;
    /// `none`: a plain grid). OpenStreetMap's by default.
    public var tileURL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    /// The tiles' attribution (`TILE_ATTRIBUTION`; OpenStreetMap's for its tiles).
    public var tileAttribution: String?

    /// The attribution the web client shows under the map.
    public var effectiveTileAttribution: String {
        tileAttribution ?? (tileURL.contains("openstreetmap.org") ? "© OpenStreetMap contributors" : "")
    }

    /// The default configuration.
    public init() {}

    /// The folder media are stored in, for a file store.
    public var effectiveMediaStorePath: String? {
        guard case .file(let path) = mediaStore else { return nil }
        if let path { return path }
        if case .sqliteFile(let file) = database { return URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("media").path }
        return "media"
    }

    /// Reads the configuration from environment-style variables.
    /// - Parameter environment: Variables by name (usually `ProcessInfo.processInfo.environment`).
    /// - Throws: ``ConfigurationError`` naming the first bad setting.
    public init(environment: [String: String]) throws {
        let reader = SettingReader(environment)
        host = try reader.string("HOST") ?? host
        port = try reader.integer("PORT", in: 0...65_535) ?? port
        if let url = try reader.string("DATABASE_URL") { database = try DatabaseLocation(parsing: url) }
        bcryptCost = try reader.integer("BCRYPT_COST", in: 4...31) ?? bcryptCost
        tokenTTL = try reader.duration("TOKEN_TTL", in: 60...(3_650 * 86_400)) ?? tokenTTL
        if let origins = try reader.string("CORS_ALLOWED_ORIGINS") {
            corsAllowedOrigins = origins.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for origin in corsAllowedOrigins where origin != "*" {
                guard let url = URL(string: origin), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                    throw ConfigurationError(setting: "CORS_ALLOWED_ORIGINS", message: "'\(origin)' is not an origin like https://app.example.com")
                }
            }
        }
        if let level = try reader.string("LOG_LEVEL") {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw ConfigurationError(setting: "LOG_LEVEL", message: "must be one of trace, debug, info, notice, warning, error, critical")
            }
            logLevel = parsed
        }
        jobWorkers = try reader.integer("JOB_WORKERS", in: 0...64)
        jobMaxAttempts = try reader.integer("JOB_MAX_ATTEMPTS", in: 1...100) ?? jobMaxAttempts
        jobLease = try reader.duration("JOB_LEASE", in: 1...3_600) ?? jobLease
        jobPollInterval = try reader.duration("JOB_POLL_INTERVAL", in: 0.01...60) ?? jobPollInterval
        jobRetryBase = try reader.duration("JOB_RETRY_BASE", in: 0.001...3_600) ?? jobRetryBase
        if let gateway = try reader.string("PUSH_GATEWAY_URL") {
            guard let url = URL(string: gateway), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ConfigurationError(setting: "PUSH_GATEWAY_URL", message: "must be an http(s) URL")
            }
            pushGatewayURL = url
        }
        pushGatewaySecret = try reader.string("PUSH_GATEWAY_SECRET") ?? pushGatewaySecret
        if let url = pushGatewayURL {
            guard pushGatewaySecret.utf8.count >= 32 else {
                throw ConfigurationError(setting: "PUSH_GATEWAY_SECRET", message: "must be at least 32 bytes when PUSH_GATEWAY_URL is set")
            }
            guard url.scheme == "https" || AddressRange.isLoopback(host: url.host ?? "") else {
                throw ConfigurationError(setting: "PUSH_GATEWAY_URL", message: "must be https unless the host is loopback (127.0.0.1, ::1, localhost)")
            }
        }
        pushGatewayTimeout = try reader.duration("PUSH_GATEWAY_TIMEOUT", in: 0.1...120) ?? pushGatewayTimeout
        databaseTimeout = try reader.duration("DATABASE_TIMEOUT", in: 0.1...120) ?? databaseTimeout
        databasePoolSize = try reader.integer("DATABASE_POOL_SIZE", in: 1...500) ?? databasePoolSize
        databaseWriteQueue = try reader.integer("DATABASE_WRITE_QUEUE", in: 0...100_000) ?? databaseWriteQueue
        databaseWriteWait = try reader.duration("DATABASE_WRITE_WAIT", in: 0...60) ?? databaseWriteWait
        globalRateLimit = try reader.integer("RATE_LIMIT_GLOBAL", in: 0...10_000_000) ?? globalRateLimit
        overloadLag = try reader.duration("OVERLOAD_LAG", in: 0...60) ?? overloadLag
        userRateLimit = try reader.integer("RATE_LIMIT_USER", in: 0...10_000_000) ?? userRateLimit
        loginMaxFailures = try reader.integer("LOGIN_MAX_FAILURES", in: 1...10_000) ?? loginMaxFailures
        loginWindow = try reader.duration("LOGIN_WINDOW", in: 1...86_400) ?? loginWindow
        chatRateLimit = try reader.integer("CHAT_RATE_LIMIT", in: 1...100_000) ?? chatRateLimit
        registerMaxPerAddress = try reader.integer("REGISTER_MAX_PER_ADDRESS", in: 0...1_000_000) ?? registerMaxPerAddress
        registerWindow = try reader.duration("REGISTER_WINDOW", in: 1...(7 * 86_400)) ?? registerWindow
        hashQueueLimit = try reader.integer("HASH_QUEUE_LIMIT", in: 1...100_000) ?? hashQueueLimit
        inviteDailyLimit = try reader.integer("INVITE_DAILY_LIMIT", in: 1...1_000_000) ?? inviteDailyLimit
        if let rate = try reader.integer("WS_FRAME_RATE", in: 1...100_000) { webSocketFrameRate = Double(rate) }
        webSocketFrameBurst = try reader.integer("WS_FRAME_BURST", in: 1...1_000_000) ?? webSocketFrameBurst
        webSocketMaxQueueBytes = try reader.integer("WS_MAX_QUEUE_BYTES", in: 65_536...(1 << 30)) ?? webSocketMaxQueueBytes
        metricsPort = try reader.integer("METRICS_PORT", in: 0...65_535)
        metricsHost = try reader.string("METRICS_HOST") ?? metricsHost
        if let token = try reader.string("METRICS_TOKEN") {
            guard token.utf8.count >= 16, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw ConfigurationError(setting: "METRICS_TOKEN", message: "must be at least 16 printable ASCII characters")
            }
            metricsToken = token
        }
        if let list = try reader.string("TRUSTED_PROXIES") {
            trustedProxies = try list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map { text in
                guard let range = AddressRange(cidr: text) else {
                    throw ConfigurationError(setting: "TRUSTED_PROXIES", message: "'\(text.prefix(60))' is not an address or CIDR range like 10.0.0.0/8 or fd00::/8")
                }
                return range
            }
        }
        webSocketPingInterval = try reader.duration("WS_PING_INTERVAL", in: 1...3_600) ?? webSocketPingInterval
        webSocketMaxQueue = try reader.integer("WS_MAX_QUEUE", in: 10...1_000_000) ?? webSocketMaxQueue
        webSocketStallTimeout = try reader.duration("WS_STALL_TIMEOUT", in: 0.1...3_600) ?? webSocketStallTimeout
        if let size = try reader.integer("GEO_CELL_SIZE", in: 100...50_000) { geoCellSize = Double(size) }
        if let store = try reader.string("MEDIA_STORE") { mediaStore = try MediaStoreSetting(parsing: store) }
        mediaS3AccessKey = try reader.string("MEDIA_S3_ACCESS_KEY") ?? mediaS3AccessKey
        mediaS3SecretKey = try reader.string("MEDIA_S3_SECRET_KEY") ?? mediaS3SecretKey
        if case .s3 = mediaStore, mediaS3AccessKey.isEmpty || mediaS3SecretKey.isEmpty {
            throw ConfigurationError(setting: "MEDIA_S3_ACCESS_KEY", message: "MEDIA_S3_ACCESS_KEY and MEDIA_S3_SECRET_KEY are required with an s3:// MEDIA_STORE")
        }
        mediaMaxBytes = try reader.integer("MEDIA_MAX_BYTES", in: 1_024...(200 * 1_000_000)) ?? mediaMaxBytes
        mediaMaxPixels = try reader.integer("MEDIA_MAX_PIXELS", in: 1...400_000_000) ?? mediaMaxPixels
        mediaUploadsPerHour = try reader.integer("MEDIA_UPLOADS_PER_HOUR", in: 0...1_000_000) ?? mediaUploadsPerHour
        mediaMaxBytesPerUser = try reader.integer("MEDIA_MAX_BYTES_PER_USER", in: 0...1_000_000_000_000) ?? mediaMaxBytesPerUser
        mediaMinUploadRate = try reader.integer("MEDIA_MIN_UPLOAD_RATE", in: 1...1_000_000_000) ?? mediaMinUploadRate
        mediaUploadGrace = TimeInterval(try reader.integer("MEDIA_UPLOAD_GRACE", in: 1...3_600) ?? Int(mediaUploadGrace))
        mediaUploadTimeout = TimeInterval(try reader.integer("MEDIA_UPLOAD_TIMEOUT", in: 1...3_600) ?? Int(mediaUploadTimeout))
        seriesHorizonDays = try reader.integer("SERIES_HORIZON", in: 7...366) ?? seriesHorizonDays
        lateCancelHours = try reader.integer("LATE_CANCEL_HOURS", in: 0...168) ?? lateCancelHours
        waitlistOfferHours = try reader.integer("WAITLIST_OFFER_HOURS", in: 0...168) ?? waitlistOfferHours
        waitlistOfferMinutes = try reader.integer("WAITLIST_OFFER_MINUTES", in: 1...1_440) ?? waitlistOfferMinutes
        mediaWorkers = try reader.integer("MEDIA_WORKERS", in: 1...256) ?? mediaWorkers
        if let base = try reader.string("MEDIA_PUBLIC_URL") {
            guard let url = URL(string: base), url.scheme == "http" || url.scheme == "https", url.host != nil, url.query == nil else {
                throw ConfigurationError(setting: "MEDIA_PUBLIC_URL", message: "must be an http(s) URL such as https://cdn.example.com")
            }
            mediaPublicURL = base
        }
        if let secret = try reader.string("MEDIA_URL_SECRET") {
            guard secret.utf8.count >= 32 else { throw ConfigurationError(setting: "MEDIA_URL_SECRET", message: "must be at least 32 bytes") }
            mediaURLSecret = secret
        }
        for provider in IdentityProvider.allCases {
            let prefix = "AUTH_\(provider.rawValue.uppercased())_"
            let ids = try reader.list(prefix + "CLIENT_IDS")
            let jwks = try reader.url(prefix + "JWKS_URL")
            let issuers = try reader.list(prefix + "ISSUER")
            guard !ids.isEmpty else { continue }
            identityProviders.append(IdentityProviderSettings(provider: provider, clientIDs: ids, jwksURL: jwks, issuers: issuers.isEmpty ? nil : issuers))
        }
        let graph = try reader.url("FACEBOOK_GRAPH_URL")
        if let secret = try reader.string("FACEBOOK_APP_SECRET") {
            let appIDs = try reader.list("AUTH_FACEBOOK_CLIENT_IDS")
            guard !appIDs.isEmpty else {
                throw ConfigurationError(setting: "FACEBOOK_APP_SECRET", message: "needs AUTH_FACEBOOK_CLIENT_IDS (the app id) for classic Facebook Login")
            }
            facebookGraph = FacebookGraphSettings(graphURL: graph ?? FacebookGraphSettings.defaultGraphURL, appIDs: appIDs, appSecret: secret)
        }
        if let web = try reader.string("WEB_CLIENT")?.lowercased() {
            guard web == "on" || web == "off" else { throw ConfigurationError(setting: "WEB_CLIENT", message: "must be on or off") }
            webClient = web == "on"
        }
        if let tiles = try reader.string("TILE_URL") {
            if tiles.lowercased() == "none" {
                tileURL = ""
            } else {
                let probe = tiles.replacingOccurrences(of: "{z}", with: "1").replacingOccurrences(of: "{x}", with: "1").replacingOccurrences(of: "{y}", with: "1")
                guard ["{z}", "{x}", "{y}"].allSatisfy(tiles.contains), let url = URL(string: probe), let host = url.host,
                      url.scheme == "https" || (url.scheme == "http" && AddressRange.isLoopback(host: host)), !tiles.contains("\""), !tiles.contains(" ")
                else { throw ConfigurationError(setting: "TILE_URL", message: "must be an https URL template with {z}, {x} and {y}, or none") }
                tileURL = tiles
            }
        }
        tileAttribution = try reader.string("TILE_ATTRIBUTION") ?? tileAttribution
        mail = try Self.readMail(reader)
        push = try PushSettings(reader)
        if case .smtp(let smtp) = mail, smtp.timeout >= jobLease {
            // A delivery outlasting its lease would be taken, and sent, by another worker too.
            throw ConfigurationError(setting: "SMTP_TIMEOUT", message: "must be shorter than JOB_LEASE (\(Int(jobLease)) s)")
        }
        // The longest one push may take: FCM's token request and send, each twice (a 401
        // refreshes the token), plus a name's lookup for Web Push.
        if push.apns != nil || push.fcm != nil || push.vapidSubject != nil, push.worstCase >= jobLease {
            throw ConfigurationError(setting: "PUSH_TIMEOUT", message: "must be under a quarter of JOB_LEASE less 5 s (\(Int(jobLease)) s): a push outlasting its job's lease would be sent again by another worker")
        }
        if pushGatewayURL != nil, pushGatewayTimeout >= jobLease {
            throw ConfigurationError(setting: "PUSH_GATEWAY_TIMEOUT", message: "must be shorter than JOB_LEASE (\(Int(jobLease)) s)")
        }
        for settings in identityProviders where settings.provider != .facebook || facebookGraph != nil {
            let prefix = "AUTH_\(settings.provider.rawValue.uppercased())_"
            let clientID = try reader.string(prefix + "WEB_CLIENT_ID") ?? settings.clientIDs[0]
            guard settings.clientIDs.contains(clientID) else {
                throw ConfigurationError(setting: prefix + "WEB_CLIENT_ID", message: "must be one of \(prefix)CLIENT_IDS")
            }
            let authorize = try reader.url(prefix + "AUTHORIZE_URL") ?? WebSignIn.defaultAuthorizeURL(settings.provider)
            webSignIn.append(WebSignIn(provider: settings.provider, clientID: clientID, authorizeURL: authorize))
        }
        if let cards = try reader.string("NEARBY_CARDS") {
            guard cards == "memory" || cards == "database" else { throw ConfigurationError(setting: "NEARBY_CARDS", message: "must be memory or database") }
            nearbyCardsFromDatabase = cards == "database"
        }
    }

    private static func readMail(_ reader: SettingReader) throws -> MailSetting? {
        let transport = try reader.string("MAIL_TRANSPORT")?.lowercased()
        guard transport != "log" else { return .log }
        guard transport == nil || transport == "smtp" else { throw ConfigurationError(setting: "MAIL_TRANSPORT", message: "must be smtp or log") }
        guard let url = try reader.string("SMTP_URL") else {
            if transport == "smtp" { throw ConfigurationError(setting: "SMTP_URL", message: "is required with MAIL_TRANSPORT=smtp") }
            return nil
        }
        guard let fromText = try reader.string("MAIL_FROM"), let from = MailAddress(parsing: fromText), AccountService.validEmail(from.address) else {
            throw ConfigurationError(setting: "MAIL_FROM", message: "must be an address, or Name <address>, when SMTP_URL is set")
        }
        guard var settings = SMTPSettings(url: url, from: from) else {
            throw ConfigurationError(setting: "SMTP_URL", message: "must be smtp://user:password@host:port (STARTTLS when offered) or smtps://… (TLS from the start)")
        }
        if let file = try reader.string("SMTP_CA_FILE") {
            guard FileManager.default.isReadableFile(atPath: file) else { throw ConfigurationError(setting: "SMTP_CA_FILE", message: "cannot read \(file)") }
            settings.trustRootsFile = file
        }
        guard (settings.username == nil) == (settings.password == nil) else {
            throw ConfigurationError(setting: "SMTP_URL", message: "needs both a user and a password, or neither")
        }
        settings.timeout = try reader.duration("SMTP_TIMEOUT", in: 1...600) ?? settings.timeout
        settings.allowsPlaintext = AddressRange.isLoopback(host: settings.host)
        return .smtp(settings)
    }

    /// Workers this process runs: SQLite allows one writer, so one worker at most.
    public var effectiveJobWorkers: Int {
        let wanted = jobWorkers ?? (database.isPostgres ? 2 : 1)
        return database.isPostgres ? wanted : min(wanted, 1)
    }

    /// The names of every setting, for documentation and the CLI.
    public static let settingNames = [
        "HOST", "PORT", "DATABASE_URL", "BCRYPT_COST", "TOKEN_TTL", "CORS_ALLOWED_ORIGINS", "LOG_LEVEL",
        "JOB_WORKERS", "JOB_MAX_ATTEMPTS", "JOB_LEASE", "JOB_POLL_INTERVAL", "JOB_RETRY_BASE", "PUSH_GATEWAY_URL", "PUSH_GATEWAY_SECRET",
        "PUSH_GATEWAY_TIMEOUT", "DATABASE_TIMEOUT", "DATABASE_POOL_SIZE", "DATABASE_WRITE_QUEUE", "DATABASE_WRITE_WAIT", "OVERLOAD_LAG", "RATE_LIMIT_GLOBAL", "RATE_LIMIT_USER",
        "LOGIN_MAX_FAILURES", "LOGIN_WINDOW", "CHAT_RATE_LIMIT", "WS_PING_INTERVAL", "WS_MAX_QUEUE", "WS_STALL_TIMEOUT", "GEO_CELL_SIZE", "NEARBY_CARDS",
        "REGISTER_MAX_PER_ADDRESS", "REGISTER_WINDOW", "HASH_QUEUE_LIMIT", "INVITE_DAILY_LIMIT", "WS_FRAME_RATE", "WS_FRAME_BURST", "WS_MAX_QUEUE_BYTES",
        "METRICS_PORT", "METRICS_HOST", "METRICS_TOKEN", "TRUSTED_PROXIES",
        "MEDIA_STORE", "MEDIA_S3_ACCESS_KEY", "MEDIA_S3_SECRET_KEY", "MEDIA_MAX_BYTES", "MEDIA_MAX_PIXELS", "MEDIA_UPLOADS_PER_HOUR", "MEDIA_PUBLIC_URL", "MEDIA_WORKERS",
        "MEDIA_URL_SECRET",
        "AUTH_APPLE_CLIENT_IDS", "AUTH_APPLE_JWKS_URL", "AUTH_APPLE_ISSUER", "AUTH_GOOGLE_CLIENT_IDS", "AUTH_GOOGLE_JWKS_URL", "AUTH_GOOGLE_ISSUER",
        "AUTH_FACEBOOK_CLIENT_IDS", "AUTH_FACEBOOK_JWKS_URL", "AUTH_FACEBOOK_ISSUER", "FACEBOOK_APP_SECRET", "FACEBOOK_GRAPH_URL",
        "AUTH_APPLE_WEB_CLIENT_ID", "AUTH_GOOGLE_WEB_CLIENT_ID", "AUTH_FACEBOOK_WEB_CLIENT_ID", "AUTH_APPLE_AUTHORIZE_URL", "AUTH_GOOGLE_AUTHORIZE_URL", "AUTH_FACEBOOK_AUTHORIZE_URL",
        "MAIL_TRANSPORT", "SMTP_URL", "MAIL_FROM", "SMTP_CA_FILE", "SMTP_TIMEOUT", "WEB_CLIENT", "TILE_URL", "TILE_ATTRIBUTION",
        "APNS_KEY_FILE", "APNS_KEY_ID", "APNS_TEAM_ID", "APNS_TOPIC", "APNS_URL", "APNS_SANDBOX_URL", "FCM_SERVICE_ACCOUNT_FILE", "FCM_URL",
        "VAPID_SUBJECT", "VAPID_PRIVATE_KEY_FILE", "PUSH_CA_FILE", "PUSH_ALLOW_LOOPBACK", "PUSH_TIMEOUT", "SERIES_HORIZON", "LATE_CANCEL_HOURS",
        "WAITLIST_OFFER_HOURS", "WAITLIST_OFFER_MINUTES",
    ]
}
