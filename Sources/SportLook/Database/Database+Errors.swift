import NIOCore
import NIOPosix
import PostgresNIO

/// What an error from either engine means to the caller.
extension Database {
    /// Errors that mean "the database is not there" rather than "the query is wrong".
    static func isConnectivityFailure(_ error: any Error) -> Bool {
        if error is DatabaseUnavailable { return true }
        if let psql = error as? PSQLError {
            switch psql.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                return true
            default:
                // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 08xxx connection exceptions.
                if let state = psql.serverInfo?[.sqlState] { return state.hasPrefix("57P") || state.hasPrefix("08") }
                return false
            }
        }
        if error is ChannelError || error is IOError || error is NIOConnectionError { return true }
        return false
    }

    /// Whether a replica's replay cancelled a read (40001, "conflict with recovery") or
    /// broke a lock wait (40P01).
    static func isRecoveryConflict(_ error: any Error) -> Bool {
        let state = (error as? PSQLError)?.serverInfo?[.sqlState]
        return state == "40001" || state == "40P01"
    }

    /// Whether PostgreSQL rolled the transaction back to break a deadlock (40P01).
    static func isDeadlock(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "40P01"
    }

    /// Whether `error` is a violation of a unique constraint (a concurrent duplicate).
    public static func isUniqueViolation(_ error: any Error) -> Bool {
        if let psql = error as? PSQLError { return psql.serverInfo?[.sqlState] == "23505" }
        if let sqlite = error as? SQLiteFailure { return sqlite.isUniqueViolation }
        return false
    }
}
