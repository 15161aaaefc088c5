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
    /// PostgreSQL read replicas for reads that tolerate lag (`DATABASE_READ_URLS`, comma-separated; none by default).
    public var databaseReadReplicas: [PostgresAddress] = []
    /// The most a replica may lag behind the primary and still answer (`READ_MAX_LAG`, default 5s).
    public var readMaxLag: TimeInterval = 5
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
    /// Chat messages one user may send per window (`CHAT_RATE_LIMIT`, default 60).
    public var chatRateLimit = 60
    /// The window of ``chatRateLimit`` (`CHAT_RATE_WINDOW`, default 1m).
    public var chatRateWindow: TimeInterval = 60
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
    /// Card payments through Stripe (`STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET`,
    /// `STRIPE_RETURN_URL`; `STRIPE_API_URL`); unset: cash and transfers alone.
    var stripe: StripeClient.Settings?
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
    /// This server's address as people reach it (`PUBLIC_URL`, e.g. https://sportlook.example),
    /// for links in mail: with a mail transport, a ready data export's link is mailed too.
    public var publicURL = ""

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
        if case .sqliteFile(let file) = database {
            return URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("media").path
        }
        return "media"
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
        "PUSH_GATEWAY_TIMEOUT", "DATABASE_TIMEOUT", "DATABASE_POOL_SIZE", "DATABASE_WRITE_QUEUE", "DATABASE_WRITE_WAIT",
        "DATABASE_READ_URLS", "READ_MAX_LAG", "OVERLOAD_LAG",
        "RATE_LIMIT_GLOBAL", "RATE_LIMIT_USER",
        "LOGIN_MAX_FAILURES", "LOGIN_WINDOW", "CHAT_RATE_LIMIT", "CHAT_RATE_WINDOW", "WS_PING_INTERVAL", "WS_MAX_QUEUE", "WS_STALL_TIMEOUT",
        "GEO_CELL_SIZE",
        "NEARBY_CARDS",
        "REGISTER_MAX_PER_ADDRESS", "REGISTER_WINDOW", "HASH_QUEUE_LIMIT", "INVITE_DAILY_LIMIT", "WS_FRAME_RATE", "WS_FRAME_BURST",
        "WS_MAX_QUEUE_BYTES",
        "METRICS_PORT", "METRICS_HOST", "METRICS_TOKEN", "TRUSTED_PROXIES",
        "MEDIA_STORE", "MEDIA_S3_ACCESS_KEY", "MEDIA_S3_SECRET_KEY", "MEDIA_MAX_BYTES", "MEDIA_MAX_PIXELS", "MEDIA_UPLOADS_PER_HOUR",
        "MEDIA_PUBLIC_URL", "MEDIA_WORKERS",
        "MEDIA_URL_SECRET",
        "AUTH_APPLE_CLIENT_IDS", "AUTH_APPLE_JWKS_URL", "AUTH_APPLE_ISSUER", "AUTH_GOOGLE_CLIENT_IDS", "AUTH_GOOGLE_JWKS_URL",
        "AUTH_GOOGLE_ISSUER",
        "AUTH_FACEBOOK_CLIENT_IDS", "AUTH_FACEBOOK_JWKS_URL", "AUTH_FACEBOOK_ISSUER", "FACEBOOK_APP_SECRET", "FACEBOOK_GRAPH_URL",
        "AUTH_APPLE_WEB_CLIENT_ID", "AUTH_GOOGLE_WEB_CLIENT_ID", "AUTH_FACEBOOK_WEB_CLIENT_ID", "AUTH_APPLE_AUTHORIZE_URL",
        "AUTH_GOOGLE_AUTHORIZE_URL", "AUTH_FACEBOOK_AUTHORIZE_URL",
        "MAIL_TRANSPORT", "SMTP_URL", "MAIL_FROM", "PUBLIC_URL", "SMTP_CA_FILE", "SMTP_TIMEOUT", "WEB_CLIENT", "TILE_URL",
        "TILE_ATTRIBUTION",
        "APNS_KEY_FILE", "APNS_KEY_ID", "APNS_TEAM_ID", "APNS_TOPIC", "APNS_URL", "APNS_SANDBOX_URL", "FCM_SERVICE_ACCOUNT_FILE", "FCM_URL",
        "VAPID_SUBJECT", "VAPID_PRIVATE_KEY_FILE", "PUSH_CA_FILE", "PUSH_ALLOW_LOOPBACK", "PUSH_TIMEOUT", "SERIES_HORIZON",
        "LATE_CANCEL_HOURS", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_RETURN_URL", "STRIPE_API_URL",
        "WAITLIST_OFFER_HOURS", "WAITLIST_OFFER_MINUTES",
    ]
}
