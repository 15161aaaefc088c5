#if canImport(Glibc)
import Glibc
#endif

/// Memory for the indexes' large tables (card slots, card bytes), in 2 MiB pages
/// where the system gives them on request.
///
/// A nearby page reads 50 cards scattered over a million: their slots in a 56 MB
/// table and their bytes in hundreds of megabytes of chunks. In 4 KiB pages the
/// processor's cache of page translations (TLB) covers a few megabytes, so nearly
/// every one of those reads first walked the page tables, itself waiting on memory.
/// In 2 MiB pages the same translations cover the whole index. Debian's kernel
/// gives them only to memory that asks (`transparent_hugepage` set to `madvise`),
/// before it is first written: hence one allocation here, aligned to a large page
/// and advised at once. Elsewhere (macOS, a kernel set to `never`) this is plain memory.
enum LargePages {
    /// The size of a large page on x86-64 and most arm64 Linux kernels.
    static let size = 1 << 21

    /// Uninitialised memory of `byteCount` bytes, from large pages when it is at
    /// least one (free it with `deallocate()`).
    static func allocate(byteCount: Int) -> UnsafeMutableRawBufferPointer {
        guard byteCount >= size else { return .allocate(byteCount: byteCount, alignment: 16) }
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: byteCount, alignment: size)
        #if os(Linux)
        // Advice only: where it is refused, the memory is as good, in small pages.
        _ = madvise(memory.baseAddress, byteCount, MADV_HUGEPAGE)
        #endif
        return memory
    }
}

