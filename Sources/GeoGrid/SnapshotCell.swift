import Synchronization

/// Holds the current immutable snapshot so that readers take it without a lock.
///
/// Readers announce themselves in a counter of the current epoch's parity, load
/// the pointer, retain the object and leave: a handful of atomic operations, no
/// waiting on anyone (a reader only retries if a writer flipped the epoch in
/// between). A writer swaps the pointer, flips the epoch and waits only for the
/// readers of the old epoch (each is a few nanoseconds from done) before releasing
/// the old snapshot. Writers must be serialised by the caller.
final class SnapshotCell<Value: AnyObject & Sendable>: Sendable {
    private let pointer: Atomic<UInt>
    private let epoch = Atomic<Int>(0)
    private let evenReaders = Atomic<Int>(0)
    private let oddReaders = Atomic<Int>(0)

    init(_ value: Value) {
        pointer = Atomic(UInt(bitPattern: Unmanaged.passRetained(value).toOpaque()))
    }

    deinit {
        Self.unmanaged(pointer.load(ordering: .sequentiallyConsistent)).release()
    }

    private static func unmanaged(_ bits: UInt) -> Unmanaged<Value> {
        // The pointer always holds a retained, non-null object.
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
    }

    private func readerCount(epoch e: Int) -> Int {
        e & 1 == 0 ? evenReaders.load(ordering: .sequentiallyConsistent) : oddReaders.load(ordering: .sequentiallyConsistent)
    }

    /// The current snapshot.
    func load() -> Value {
        while true {
            let e = epoch.load(ordering: .sequentiallyConsistent)
            let even = e & 1 == 0
            if even {
                evenReaders.wrappingAdd(1, ordering: .sequentiallyConsistent)
            } else {
                oddReaders.wrappingAdd(1, ordering: .sequentiallyConsistent)
            }
            defer {
                if even {
                    evenReaders.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                } else {
                    oddReaders.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                }
            }
            guard epoch.load(ordering: .sequentiallyConsistent) == e else { continue }
            let object = Self.unmanaged(pointer.load(ordering: .sequentiallyConsistent))
            _ = object.retain()
            return object.takeRetainedValue()
        }
    }

    /// Publishes a new snapshot and releases the old one once no reader can be
    /// taking it. Callers serialise calls to `store`.
    func store(_ value: Value) {
        let old = pointer.exchange(UInt(bitPattern: Unmanaged.passRetained(value).toOpaque()), ordering: .sequentiallyConsistent)
        let e = epoch.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        var spins = 0
        while readerCount(epoch: e) != 0 {
            spins += 1
            if spins > 64 { sched_yield() }
        }
        Self.unmanaged(old).release()
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
