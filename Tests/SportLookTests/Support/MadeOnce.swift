import Synchronization

/// Values made once a process, by key, for tests that all ask for the same slow thing
/// (a photo drawn by a debug build, a 2048-bit RSA key). Two tests asking at once may
/// both make it; the first one stored is the one everyone gets.
final class MadeOnce<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let made = Mutex<[Key: Value]>([:])

    func callAsFunction(_ key: Key, make: () throws -> Value) rethrows -> Value {
        if let value = made.withLock({ $0[key] }) { return value }
        let value = try make()
        return made.withLock { made in
            if let first = made[key] { return first }
            made[key] = value
            return value
        }
    }
}
