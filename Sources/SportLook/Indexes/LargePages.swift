#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Memory for the indexes' large tables (card slots, card bytes), in 2 MiB pages
/// where the system gives them on request, and given back to the system when freed.
///
/// A nearby page reads 50 cards scattered over a million: their slots in a 56 MB
/// table and their bytes in hundreds of megabytes of chunks. In 4 KiB pages the
/// processor's cache of page translations (TLB) covers a few megabytes, so nearly
/// every one of those reads first walked the page tables, itself waiting on memory.
/// In 2 MiB pages the same translations cover the whole index. Debian's kernel
/// gives them only to memory that asks (`transparent_hugepage` set to `madvise`),
/// before it is first written: hence a mapping of our own, aligned to a large page
/// and advised at once. Its own mapping also returns to the system when freed,
/// where `malloc` keeps freed blocks of this size for later. Elsewhere (macOS)
/// this is plain memory.
enum LargePages {
    /// The size of a large page on x86-64 and most arm64 Linux kernels.
    static let size = 1 << 21

    /// `byteCount` bytes of zeros, to be freed with ``free(_:)``.
    static func allocateZeroed(byteCount: Int) -> UnsafeMutableRawBufferPointer {
        let memory = allocate(byteCount: byteCount)
        // A new mapping is zeros already: not written here, so it is not touched before its use.
        if !isMapped(byteCount) { memory.initializeMemory(as: UInt8.self, repeating: 0) }
        return memory
    }

    /// Uninitialised memory of `byteCount` bytes, to be freed with ``free(_:)``.
    static func allocate(byteCount: Int) -> UnsafeMutableRawBufferPointer {
        #if os(Linux)
            guard isMapped(byteCount) else { return .allocate(byteCount: byteCount, alignment: 16) }
            let length = mappedLength(byteCount)
            // A large page more than asked, to start at a multiple of one; the rest is unmapped.
            guard let mapped = mmap(nil, length + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mapped != MAP_FAILED
            else {
                fatalError("out of memory: \(byteCount) bytes for an index")
            }
            let address = UInt(bitPattern: mapped)
            let start = (address + UInt(size) - 1) & ~UInt(size - 1)
            if start > address { munmap(mapped, Int(start - address)) }
            let tail = Int(address + UInt(size) - start)
            if tail > 0 { munmap(UnsafeMutableRawPointer(bitPattern: start + UInt(length)), tail) }
            let memory = UnsafeMutableRawPointer(bitPattern: start)!
            // Advice only: where it is refused, the memory is as good, in small pages.
            _ = madvise(memory, length, MADV_HUGEPAGE)
            return UnsafeMutableRawBufferPointer(start: memory, count: byteCount)
        #else
            return .allocate(byteCount: byteCount, alignment: 16)
        #endif
    }

    /// Frees memory from ``allocate(byteCount:)``.
    static func free(_ memory: UnsafeMutableRawBufferPointer) {
        #if os(Linux)
            if isMapped(memory.count) {
                munmap(memory.baseAddress, mappedLength(memory.count))
                return
            }
        #endif
        memory.deallocate()
    }

    /// Whether memory of this size is a mapping of its own (on Linux, from a large page up).
    private static func isMapped(_ byteCount: Int) -> Bool {
        #if os(Linux)
            byteCount >= size
        #else
            false
        #endif
    }

    private static func mappedLength(_ byteCount: Int) -> Int { (byteCount + size - 1) / size * size }
}
