import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a helper of the tests could not do its part.
public struct SupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Runs blocking code (a socket read, `waitpid`) on a thread of its own. Blocking one of
/// the few threads of Swift's cooperative pool would starve a server under test whose
/// handlers run on that pool: on a 2-core machine two blocked reads are a deadlock.
@discardableResult
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Waits until `condition` holds, looking every `interval`; throws after `timeout`. The
/// default minute is for CI, where a suite shares two cores with a build: a job that
/// takes a second on a quiet machine took over ten there.
public func eventually(
    _ description: String = "condition", timeout: Duration = .seconds(60), interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: interval)
    }
    throw SupportError("timed out waiting for \(description)")
}

/// A TCP port on 127.0.0.1 that nothing listens on right now (the kernel's choice).
public func freePort() throws -> Int {
    let fd = socket(AF_INET, socketStream, 0)
    guard fd >= 0 else { throw SupportError("cannot open a probe socket") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw SupportError("cannot bind a probe socket") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A blocking TCP socket connected to 127.0.0.1:`port` (call it through
/// ``blocking(_:)``), with a small receive buffer if asked.
public func connectLoopback(port: Int, receiveBuffer: Int32? = nil) throws -> Int32 {
    let fd = socket(AF_INET, socketStream, 0)
    guard fd >= 0 else { throw SupportError("cannot open a socket") }
    if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        throw SupportError("cannot connect to port \(port)")
    }
    return fd
}

#if canImport(Glibc)
    let socketStream = Int32(SOCK_STREAM.rawValue)
#else
    let socketStream = SOCK_STREAM
#endif

/// Waits for the spawned program `pid` to end (blocking the thread) and returns its
/// `waitpid` status.
public func exitStatus(of pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status
}

#if os(Linux) || os(macOS)
    /// Starts a program with `posix_spawn`, its output appended to a file.
    ///
    /// Not Foundation's `Process`: `pg_ctl start` leaves a server running that inherits
    /// the child's descriptors, and `Process` then waits for ever. Nothing but the three
    /// standard descriptors is passed on: a server that inherited a test's sockets would
    /// keep them open after the test closes them (a closed WebSocket never reaching its
    /// client). No signal is blocked in it: a test's threads block some (SIGTERM among
    /// them), and a child inheriting that mask would never stop when told to.
    public func spawn(_ argv: [String], environment: [String: String]? = nil, output: String, errors: String? = nil) throws -> pid_t {
        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #else
            var actions: posix_spawn_file_actions_t = nil
            var attributes: posix_spawnattr_t = nil
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if let errors {
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        #if canImport(Glibc)
            guard let closeFrom = closeFromAction else {
                throw SupportError("this C library (glibc before 2.34) cannot close descriptors in a spawned program")
            }
            _ = closeFrom(&actions, 3)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        #else
            // Darwin: every descriptor not named in the actions is closed in the child.
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_CLOEXEC_DEFAULT))
        #endif
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for p in cArguments { free(p) } }
        var cEnvironment = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in cEnvironment { free(p) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, argv[0], &actions, &attributes, &cArguments, &cEnvironment)
        guard result == 0 else { throw SupportError("cannot start \(argv[0]): error \(result)") }
        return pid
    }
#endif

#if canImport(Glibc)
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's
    /// Glibc module does not declare.
    private let closeFromAction: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
#endif
