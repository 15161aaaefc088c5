import Foundation
import Logging

/// Reading the configuration from the environment, checked setting by setting.
extension AppConfiguration {
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
                    throw ConfigurationError(
                        setting: "CORS_ALLOWED_ORIGINS", message: "'\(origin)' is not an origin like https://app.example.com")
                }
            }
        }
        if let level = try reader.string("LOG_LEVEL") {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw ConfigurationError(
                    setting: "LOG_LEVEL", message: "must be one of trace, debug, info, notice, warning, error, critical")
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
                throw ConfigurationError(
                    setting: "PUSH_GATEWAY_URL", message: "must be https unless the host is loopback (127.0.0.1, ::1, localhost)")
            }
        }
        pushGatewayTimeout = try reader.duration("PUSH_GATEWAY_TIMEOUT", in: 0.1...120) ?? pushGatewayTimeout
        databaseTimeout = try reader.duration("DATABASE_TIMEOUT", in: 0.1...120) ?? databaseTimeout
        databasePoolSize = try reader.integer("DATABASE_POOL_SIZE", in: 1...500) ?? databasePoolSize
        databaseWriteQueue = try reader.integer("DATABASE_WRITE_QUEUE", in: 0...100_000) ?? databaseWriteQueue
        databaseWriteWait = try reader.duration("DATABASE_WRITE_WAIT", in: 0...60) ?? databaseWriteWait
        databaseReadReplicas = try reader.list("DATABASE_READ_URLS").map { url in
            guard case .postgres(let address) = try DatabaseLocation(parsing: url, setting: "DATABASE_READ_URLS") else {
                throw ConfigurationError(setting: "DATABASE_READ_URLS", message: "replicas are PostgreSQL's: postgres://…")
            }
            return address
        }
        if !databaseReadReplicas.isEmpty, !database.isPostgres {
            throw ConfigurationError(setting: "DATABASE_READ_URLS", message: "needs DATABASE_URL on PostgreSQL")
        }
        readMaxLag = try reader.duration("READ_MAX_LAG", in: 0.1...3_600) ?? readMaxLag
        globalRateLimit = try reader.integer("RATE_LIMIT_GLOBAL", in: 0...10_000_000) ?? globalRateLimit
        overloadLag = try reader.duration("OVERLOAD_LAG", in: 0...60) ?? overloadLag
        userRateLimit = try reader.integer("RATE_LIMIT_USER", in: 0...10_000_000) ?? userRateLimit
        loginMaxFailures = try reader.integer("LOGIN_MAX_FAILURES", in: 1...10_000) ?? loginMaxFailures
        loginWindow = try reader.duration("LOGIN_WINDOW", in: 1...86_400) ?? loginWindow
        chatRateLimit = try reader.integer("CHAT_RATE_LIMIT", in: 1...100_000) ?? chatRateLimit
        chatRateWindow = try reader.duration("CHAT_RATE_WINDOW", in: 1...86_400) ?? chatRateWindow
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
            trustedProxies = try list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map {
                text in
                guard let range = AddressRange(cidr: text) else {
                    throw ConfigurationError(
                        setting: "TRUSTED_PROXIES",
                        message: "'\(text.prefix(60))' is not an address or CIDR range like 10.0.0.0/8 or fd00::/8")
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
            throw ConfigurationError(
                setting: "MEDIA_S3_ACCESS_KEY",
                message: "MEDIA_S3_ACCESS_KEY and MEDIA_S3_SECRET_KEY are required with an s3:// MEDIA_STORE")
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
        stripe = try Self.readStripe(reader)
        waitlistOfferHours = try reader.integer("WAITLIST_OFFER_HOURS", in: 0...168) ?? waitlistOfferHours
        waitlistOfferMinutes = try reader.integer("WAITLIST_OFFER_MINUTES", in: 1...1_440) ?? waitlistOfferMinutes
        mediaWorkers = try reader.integer("MEDIA_WORKERS", in: 1...256) ?? mediaWorkers
        if let base = try reader.string("MEDIA_PUBLIC_URL") {
            guard let url = URL(string: base), url.scheme == "http" || url.scheme == "https", url.host != nil, url.query == nil else {
                throw ConfigurationError(setting: "MEDIA_PUBLIC_URL", message: "must be an http(s) URL such as https://cdn.example.com")
            }
            mediaPublicURL = base
        }
        if let base = try reader.string("PUBLIC_URL") {
            guard let url = URL(string: base), url.scheme == "http" || url.scheme == "https", url.host != nil, url.query == nil,
                url.fragment == nil, url.user == nil, url.password == nil
            else {
                throw ConfigurationError(
                    setting: "PUBLIC_URL",
                    message: "must be an http(s) URL such as https://sportlook.example, without credentials, query or fragment")
            }
            publicURL = base.hasSuffix("/") ? String(base.dropLast()) : base
        }
        if let secret = try reader.string("MEDIA_URL_SECRET") {
            guard secret.utf8.count >= 32 else {
                throw ConfigurationError(setting: "MEDIA_URL_SECRET", message: "must be at least 32 bytes")
            }
            mediaURLSecret = secret
        }
        for provider in IdentityProvider.allCases {
            let prefix = "AUTH_\(provider.rawValue.uppercased())_"
            let ids = try reader.list(prefix + "CLIENT_IDS")
            let jwks = try reader.url(prefix + "JWKS_URL")
            let issuers = try reader.list(prefix + "ISSUER")
            guard !ids.isEmpty else { continue }
            identityProviders.append(
                IdentityProviderSettings(provider: provider, clientIDs: ids, jwksURL: jwks, issuers: issuers.isEmpty ? nil : issuers))
        }
        let graph = try reader.url("FACEBOOK_GRAPH_URL")
        if let secret = try reader.string("FACEBOOK_APP_SECRET") {
            let appIDs = try reader.list("AUTH_FACEBOOK_CLIENT_IDS")
            guard !appIDs.isEmpty else {
                throw ConfigurationError(
                    setting: "FACEBOOK_APP_SECRET", message: "needs AUTH_FACEBOOK_CLIENT_IDS (the app id) for classic Facebook Login")
            }
            facebookGraph = FacebookGraphSettings(
                graphURL: graph ?? FacebookGraphSettings.defaultGraphURL, appIDs: appIDs, appSecret: secret)
        }
        if let web = try reader.string("WEB_CLIENT")?.lowercased() {
            guard web == "on" || web == "off" else { throw ConfigurationError(setting: "WEB_CLIENT", message: "must be on or off") }
            webClient = web == "on"
        }
        if let tiles = try reader.string("TILE_URL") {
            if tiles.lowercased() == "none" {
                tileURL = ""
            } else {
                let probe = tiles.replacingOccurrences(of: "{z}", with: "1").replacingOccurrences(of: "{x}", with: "1")
                    .replacingOccurrences(of: "{y}", with: "1")
                guard ["{z}", "{x}", "{y}"].allSatisfy(tiles.contains), let url = URL(string: probe), let host = url.host,
                    url.scheme == "https" || (url.scheme == "http" && AddressRange.isLoopback(host: host)), !tiles.contains("\""),
                    !tiles.contains(" ")
                else {
                    throw ConfigurationError(setting: "TILE_URL", message: "must be an https URL template with {z}, {x} and {y}, or none")
                }
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
            throw ConfigurationError(
                setting: "PUSH_TIMEOUT",
                message:
                    "must be under a quarter of JOB_LEASE less 5 s (\(Int(jobLease)) s): a push outlasting its job's lease would be sent again by another worker"
            )
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
            guard cards == "memory" || cards == "database" else {
                throw ConfigurationError(setting: "NEARBY_CARDS", message: "must be memory or database")
            }
            nearbyCardsFromDatabase = cards == "database"
        }
    }

    static func readMail(_ reader: SettingReader) throws -> MailSetting? {
        let transport = try reader.string("MAIL_TRANSPORT")?.lowercased()
        guard transport != "log" else { return .log }
        guard transport == nil || transport == "smtp" else {
            throw ConfigurationError(setting: "MAIL_TRANSPORT", message: "must be smtp or log")
        }
        guard let url = try reader.string("SMTP_URL") else {
            if transport == "smtp" { throw ConfigurationError(setting: "SMTP_URL", message: "is required with MAIL_TRANSPORT=smtp") }
            return nil
        }
        guard let fromText = try reader.string("MAIL_FROM"), let from = MailAddress(parsing: fromText),
            AccountService.validEmail(from.address)
        else {
            throw ConfigurationError(setting: "MAIL_FROM", message: "must be an address, or Name <address>, when SMTP_URL is set")
        }
        guard var settings = SMTPSettings(url: url, from: from) else {
            throw ConfigurationError(
                setting: "SMTP_URL",
                message: "must be smtp://user:password@host:port (STARTTLS when offered) or smtps://… (TLS from the start)")
        }
        if let file = try reader.string("SMTP_CA_FILE") {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw ConfigurationError(setting: "SMTP_CA_FILE", message: "cannot read \(file)")
            }
            settings.trustRootsFile = file
        }
        guard (settings.username == nil) == (settings.password == nil) else {
            throw ConfigurationError(setting: "SMTP_URL", message: "needs both a user and a password, or neither")
        }
        settings.timeout = try reader.duration("SMTP_TIMEOUT", in: 1...600) ?? settings.timeout
        settings.allowsPlaintext = AddressRange.isLoopback(host: settings.host)
        return .smtp(settings)
    }

    /// Card payments: all of the key, the webhook's secret and where people come back, or none.
    static func readStripe(_ reader: SettingReader) throws -> StripeClient.Settings? {
        guard let key = try reader.string("STRIPE_SECRET_KEY") else {
            for name in ["STRIPE_WEBHOOK_SECRET", "STRIPE_RETURN_URL", "STRIPE_API_URL"] where try reader.string(name) != nil {
                throw ConfigurationError(setting: name, message: "needs STRIPE_SECRET_KEY")
            }
            return nil
        }
        guard let secret = try reader.string("STRIPE_WEBHOOK_SECRET") else {
            throw ConfigurationError(
                setting: "STRIPE_WEBHOOK_SECRET", message: "is required with STRIPE_SECRET_KEY (the webhook endpoint's signing secret)")
        }
        func web(_ name: String) throws -> URL? {
            guard let text = try reader.string(name) else { return nil }
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil, url.fragment == nil else {
                throw ConfigurationError(setting: name, message: "must be an http(s) URL without a fragment")
            }
            return url
        }
        guard let back = try web("STRIPE_RETURN_URL") else {
            throw ConfigurationError(
                setting: "STRIPE_RETURN_URL",
                message: "is required with STRIPE_SECRET_KEY: the web client's address, such as https://sportlook.example/")
        }
        var settings = StripeClient.Settings(secretKey: key, webhookSecret: secret, returnURL: back)
        if let api = try web("STRIPE_API_URL") {
            settings.apiURL = URL(string: api.absoluteString.hasSuffix("/") ? String(api.absoluteString.dropLast()) : api.absoluteString)!
        }
        return settings
    }
}
