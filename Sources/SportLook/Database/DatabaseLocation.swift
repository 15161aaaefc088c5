import Foundation

/// Where the database is: a SQLite file, an in-memory SQLite database, or a PostgreSQL server.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite database file.
    case sqliteFile(String)
    /// A private in-memory SQLite database (gone when the process ends).
    case sqliteMemory
    /// A PostgreSQL database.
    case postgres(PostgresAddress)

    /// Parses `sqlite:PATH`, `sqlite::memory:` or `postgres://user:pass@host:port/db`.
    /// - Parameters:
    ///   - url: The value of `DATABASE_URL`.
    ///   - setting: The setting named in an error (`DATABASE_READ_URLS` for a replica's).
    /// - Throws: ``ConfigurationError`` for anything else.
    public init(parsing url: String, setting: String = "DATABASE_URL") throws {
        if url == "sqlite::memory:" {
            self = .sqliteMemory
        } else if url.hasPrefix("sqlite:") {
            let path = String(url.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw ConfigurationError(setting: setting, message: "sqlite: needs a file path, e.g. sqlite:sportlook.sqlite")
            }
            self = .sqliteFile(path)
        } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            // Several hosts, as libpq writes them (`host1:5432,host2:5433`): the first is
            // parsed with the URL, the others after it.
            var url = url
            var others: [PostgresHost] = []
            let scheme = url.range(of: "://")!.upperBound
            let authority = url[scheme...].prefix { $0 != "/" && $0 != "?" }
            let hostsStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
            let hostList = authority[hostsStart...].split(separator: ",", omittingEmptySubsequences: false)
            if hostList.count > 1 {
                for entry in hostList.dropFirst() {
                    let parts = entry.split(separator: ":", omittingEmptySubsequences: false)
                    guard !entry.isEmpty, parts.count <= 2, !parts[0].isEmpty, let port = parts.count == 2 ? Int(parts[1]) : 5432,
                        (1...65_535).contains(port)
                    else { throw ConfigurationError(setting: setting, message: "expected host:port,host:port for several hosts") }
                    others.append(PostgresHost(host: String(parts[0]), port: port))
                }
                url.replaceSubrange(hostsStart..<authority.endIndex, with: hostList[0])
            }
            guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty,
                let user = components.user, !user.isEmpty
            else {
                throw ConfigurationError(setting: setting, message: "expected postgres://user:password@host:port/database")
            }
            let database = String(components.path.drop(while: { $0 == "/" }))
            guard !database.isEmpty else { throw ConfigurationError(setting: setting, message: "names no database (…/database)") }
            self = .postgres(
                PostgresAddress(
                    host: host, port: components.port ?? 5432, user: user.removingPercentEncoding ?? user,
                    password: components.password?.removingPercentEncoding, database: database, otherHosts: others
                ))
        } else {
            throw ConfigurationError(setting: setting, message: "must start with sqlite: or postgres:// (got '\(url.prefix(30))')")
        }
    }

    /// Whether this is PostgreSQL.
    public var isPostgres: Bool { if case .postgres = self { true } else { false } }

    /// The URL, with any password hidden.
    public var description: String {
        switch self {
        case .sqliteFile(let path): "sqlite:\(path)"
        case .sqliteMemory: "sqlite::memory:"
        case .postgres(let a): "postgres://\(a.user)@\(a.hostList)/\(a.database)"
        }
    }
}

/// How to reach a PostgreSQL database.
public struct PostgresAddress: Sendable, Equatable {
    /// Host name or address.
    public var host: String
    /// TCP port.
    public var port: Int
    /// Role to log in as.
    public var user: String
    /// Password, if any.
    public var password: String?
    /// Database name.
    public var database: String
    /// More servers of the cluster, after ``host``: the primary is whichever takes writes
    /// (``PostgresPrimary``).
    public var otherHosts: [PostgresHost]

    /// Every server named, the first first.
    public var hosts: [PostgresHost] { [PostgresHost(host: host, port: port)] + otherHosts }

    /// The servers as a URL names them: `host1:5432,host2:5432`.
    var hostList: String { hosts.map(\.description).joined(separator: ",") }

    /// Creates an address.
    public init(host: String, port: Int, user: String, password: String?, database: String, otherHosts: [PostgresHost] = []) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.otherHosts = otherHosts
    }

    /// The `postgres://` URL.
    public var url: String {
        let secret = password.map { ":" + ($0.addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed) ?? $0) } ?? ""
        return "postgres://\(user)\(secret)@\(hostList)/\(database)"
    }
}

/// One PostgreSQL server's host and port.
public struct PostgresHost: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    /// `host:port`.
    public var description: String { "\(host):\(port)" }

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}
