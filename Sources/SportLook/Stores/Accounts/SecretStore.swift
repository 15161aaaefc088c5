import Crypto
import Foundation
import SQLKit

/// Secrets every instance sharing the database agrees on, made at random by the
/// first instance that asks for one.
struct SecretStore: Store {
    let database: Database

    /// The secret named `name` (32 random bytes, hex), made now when there is none. Two
    /// instances starting together both try to insert; one row wins and both read it.
    func secret(_ name: String) async throws -> String {
        let made = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }.hexString
        return try await database.transaction { sql in
            try await sql.raw(
                "INSERT INTO server_secrets (name, value) VALUES (\(bind: name), \(bind: made)) ON CONFLICT (name) DO NOTHING"
            ).run()
            guard let row = try await sql.raw("SELECT value FROM server_secrets WHERE name = \(bind: name)").first() else {
                throw DomainError(.unavailable, code: "unavailable", message: Sentence("The secret \(name) could not be stored."))
            }
            return try row.value("value")
        }
    }
}
