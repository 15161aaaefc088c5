import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

/// Every database test runs once per engine.
/// `SPORTLOOK_TEST_ENGINES=sqlite` (or `postgres`) narrows a run to one engine while working.
let engines: [DatabaseEngine] = {
    let wanted =
        ProcessInfo.processInfo.environment["SPORTLOOK_TEST_ENGINES"]?.split(separator: ",").compactMap {
            DatabaseEngine(rawValue: String($0))
        } ?? []
    return wanted.isEmpty ? [.sqlite, .postgres] : wanted
}()

/// Where the tests' databases live: memory-backed `/dev/shm` where there is one, else the
/// temporary folder. Each PostgreSQL test database is a copy of a template's 600 files,
/// made and removed again; on a disk's file system the kernel's work on them was a sixth
/// of the suite's CPU time.
let scratchFolder: String = {
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isFolder), isFolder.boolValue,
        FileManager.default.isWritableFile(atPath: "/dev/shm")
    {
        return "/dev/shm/"
    }
    return NSTemporaryDirectory()
}()

/// A clock tests move by hand.
final class ManualClock: AppClock {
    private let current: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) { current = Mutex(start) }
    func now() -> Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// A configuration for tests: cheap bcrypt, a fresh database of the engine's kind.
func testConfiguration(_ engine: DatabaseEngine) async throws -> AppConfiguration {
    switch engine {
    // A file (not :memory:), so reads use WAL reader connections as in production.
    case .sqlite:
        let path = scratchFolder + "sportlook-test-\(UUID().uuidString).sqlite"
        try FileManager.default.copyItem(atPath: try await SQLiteTemplate.path(), toPath: path)
        return testConfiguration(on: .sqliteFile(path))
    case .postgres: return testConfiguration(on: .postgres(try await PostgresCluster.shared.freshDatabase()))
    }
}

/// A configuration for tests on a database made already: cheap bcrypt, limits off.
func testConfiguration(on database: DatabaseLocation) -> AppConfiguration {
    var configuration = AppConfiguration()
    configuration.database = database
    configuration.bcryptCost = 4
    // With the whole suite on two cores an idle-class hash once waited longer than the
    // test client's 20 s; that hashing gives way has its own test.
    configuration.hashingYields = false
    configuration.logLevel = .error
    configuration.databasePoolSize = 8
    // Suites run in parallel on few cores; a slow answer there is not an outage.
    configuration.databaseTimeout = 60
    // Writes there are often slower than a production bound on a standing queue; the
    // overload tests set it.
    configuration.databaseWriteWait = 0
    configuration.overloadLag = 0
    configuration.port = 0
    // Suites hammer the API from few accounts; the limits have their own test.
    configuration.userRateLimit = 0
    configuration.globalRateLimit = 0
    configuration.registerMaxPerAddress = 0
    // Most suites' games start a day ahead, where a freed place would be offered rather
    // than given; the offers have their own suite, which turns them on.
    configuration.waitlistOfferHours = 0
    configuration.webSocketFrameRate = 1_000_000
    configuration.webSocketFrameBurst = 1_000_000
    configuration.inviteDailyLimit = 1_000_000
    configuration.mediaUploadsPerHour = 0
    configuration.mediaStore = .file(path: NSTemporaryDirectory() + "sportlook-media-\(UUID().uuidString)")
    return configuration
}

/// A SQLite file migrated once per test process (as PostgreSQL's template database is):
/// each SQLite test starts on a copy of it instead of running every migration again.
enum SQLiteTemplate {
    private static let made = Mutex<Task<String, any Error>?>(nil)

    static func path() async throws -> String {
        let task = made.withLock { made in
            if let made { return made }
            let task = Task { try await make() }
            made = task
            return task
        }
        do {
            return try await task.value
        } catch {
            // Not kept: the next test tries again.
            made.withLock { if $0 == task { $0 = nil } }
            throw error
        }
    }

    private static func make() async throws -> String {
        let path = scratchFolder + "sportlook-template-\(getpid())-\(UUID().uuidString).sqlite"
        atexit { removeSQLiteTemplates() }
        var logger = Logger(label: "sqlite-template")
        logger.logLevel = .error
        let database = try await Database.open(.sqliteFile(path), poolSize: 2, timeout: 60, logger: logger)
        try await prepare(database, resources: try Resources.locate(), migrate: true, logger: logger)
        await database.close()
        // Closing the last connection folds the write-ahead log into the file.
        guard !FileManager.default.fileExists(atPath: path + "-wal") else { throw ClusterError("the template kept its log") }
        return path
    }
}

/// Removes this process's SQLite template (at exit).
private func removeSQLiteTemplates() {
    let prefix = "sportlook-template-\(getpid())-"
    let folder = scratchFolder
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
        try? FileManager.default.removeItem(atPath: folder + name)
    }
}

/// Builds an application on a fresh database of `engine` and runs `test` against it.
func withApp(
    _ engine: DatabaseEngine,
    clock: ManualClock = ManualClock(Date().wholeMilliseconds),
    queueClock: ManualClock? = nil,
    setup: TestingSetup = .router,
    configure: (inout AppConfiguration) -> Void = { _ in },
    _ test: @Sendable (API, AppServices) async throws -> Void
) async throws {
    TestCounter.record(engine)
    var configuration = try await testConfiguration(engine)
    configure(&configuration)
    var logger = Logger(label: "test")
    logger.logLevel = ProcessInfo.processInfo.environment["SPORTLOOK_TEST_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .error
    configuration.logLevel = logger.logLevel
    do {
        let (application, services) = try await makeApplication(configuration, clock: clock, queueClock: queueClock, logger: logger)
        try await application.test(setup) { client in
            try await services.waitUntilWarm()
            try await test(API(client: client), services)
        }
    } catch {
        await dispose(configuration)
        throw error
    }
    await dispose(configuration)
}

/// Removes a test's database and media folder.
func dispose(_ configuration: AppConfiguration) async {
    await dispose(configuration.database)
    if let folder = configuration.effectiveMediaStorePath { try? FileManager.default.removeItem(atPath: folder) }
}

/// Two instances of the application on one fresh PostgreSQL database, warm and
/// with their bus listeners up; the first served over real sockets (`firstSetup`),
/// the second through the router.
func withTwoInstances(
    clock: any AppClock = SystemClock(),
    queueClock: (any AppClock)? = nil,
    firstSetup: TestingSetup = .live,
    secondSetup: TestingSetup = .router,
    configure: (inout AppConfiguration) -> Void = { _ in },
    _ test: @Sendable (_ one: API, _ two: API, _ first: AppServices, _ second: AppServices) async throws -> Void
) async throws {
    TestCounter.record(.postgres)
    var configuration = testConfiguration(on: .postgres(try await PostgresCluster.shared.freshDatabase()))
    configure(&configuration)
    var logger = Logger(label: "test")
    logger.logLevel = .error
    do {
        let (first, firstServices) = try await makeApplication(configuration, clock: clock, queueClock: queueClock, logger: logger)
        let (second, secondServices) = try await makeApplication(configuration, clock: clock, queueClock: queueClock, logger: logger)
        try await first.test(firstSetup) { one in
            try await second.test(secondSetup) { two in
                try await firstServices.waitUntilWarm()
                try await secondServices.waitUntilWarm()
                try await eventually("bus listeners") { firstServices.bus.isListening && secondServices.bus.isListening }
                try await test(API(client: one), API(client: two), firstServices, secondServices)
            }
        }
    } catch {
        await dispose(configuration)
        throw error
    }
    await dispose(configuration)
}

/// Opens an empty database of `engine` (no schema, no application) and runs `test`
/// with it; then closes and removes it.
func withEmptyDatabase(_ engine: DatabaseEngine, timeout: TimeInterval = 30, _ test: (Database) async throws -> Void) async throws {
    TestCounter.record(engine)
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    let location: DatabaseLocation =
        engine == .sqlite
        ? .sqliteFile(scratchFolder + "empty-\(UUID().uuidString).sqlite")
        : .postgres(try await PostgresCluster.shared.emptyDatabase())
    let database: Database
    do {
        database = try await Database.open(location, timeout: timeout, logger: logger)
    } catch {
        await dispose(location)
        throw error
    }
    do {
        try await test(database)
    } catch {
        await database.close()
        await dispose(location)
        throw error
    }
    await database.close()
    await dispose(location)
}

/// Removes a test database.
func dispose(_ location: DatabaseLocation) async {
    switch location {
    case .postgres(let address): await PostgresCluster.shared.drop(address)
    case .sqliteFile(let path): for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    case .sqliteMemory: break
    }
}

/// An answer as received. Its body is read through ``decode(_:)`` into the
/// models of `Responses.swift`, never through casts.
struct Reply: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as `T`; when it is not one, an error with the status, the reason and the body.
    func decode<T: Decodable>(_: T.Type = T.self) throws -> T {
        do {
            return try API.decoder.decode(T.self, from: body)
        } catch {
            throw ClusterError("\(status) answer is not \(T.self): \(error)\nbody: \(text.prefix(2_000))")
        }
    }

    /// The body as `T` if the status is `expected`; otherwise an error with the status and the body.
    func decode<T: Decodable>(_: T.Type = T.self, expecting expected: HTTPResponse.Status) throws -> T {
        guard status == expected else { throw ClusterError("expected \(expected), got \(status): \(text.prefix(2_000))") }
        return try decode()
    }

    /// The error body's code; throws when the body is not an error.
    var errorCode: String { get throws { try decode(API.ErrorBody.self).error.code } }

    /// The error body's fields (empty when it names none); throws when the body is not an error.
    var errorFields: [String: String] { get throws { try decode(API.ErrorBody.self).error.fields ?? [:] } }
}

/// A small JSON client over the test framework's client.
struct API: Sendable {
    let client: any TestClientProtocol

    func request(
        _ method: HTTPRequest.Method, _ path: String, token: String? = nil, json: Any? = nil, raw: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]))
            if headers[.contentType] == nil { headers[.contentType] = "application/json" }
        } else if let raw {
            body = ByteBuffer(string: raw)
            if headers[.contentType] == nil { headers[.contentType] = "application/json" }
        }
        let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: body)
        let reply = Reply(status: response.status, headers: response.headers, body: Data(response.body.readableBytesView))
        ResponseLog.record(path: path, reply: reply)
        ContractLog.record(method: method, path: path, reply: reply)
        return reply
    }

    func get(_ path: String, token: String? = nil) async throws -> Reply { try await request(.get, path, token: token) }
    func post(_ path: String, token: String? = nil, json: Any? = nil) async throws -> Reply {
        try await request(.post, path, token: token, json: json)
    }
    func patch(_ path: String, token: String? = nil, json: Any? = nil) async throws -> Reply {
        try await request(.patch, path, token: token, json: json)
    }
    func put(_ path: String, token: String? = nil, json: Any? = nil) async throws -> Reply {
        try await request(.put, path, token: token, json: json)
    }
    func delete(_ path: String, token: String? = nil) async throws -> Reply { try await request(.delete, path, token: token) }

    /// One page of a list; fails unless 200.
    func page<Item: Decodable & Sendable>(_: Item.Type, _ path: String, token: String) async throws -> Page<Item> {
        try await get(path, token: token).decode(expecting: .ok)
    }

    /// Every page of a list, following cursors (`path` has a query already); fails unless each is 200.
    func allPages<Item: Decodable & Sendable>(_: Item.Type, _ path: String, token: String) async throws -> [Item] {
        var items: [Item] = []
        var cursor: String?
        repeat {
            let current = try await page(Item.self, path + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
            items += current.items
            cursor = current.nextCursor
        } while cursor != nil
        return items
    }
}

/// Every JSON answer the suite receives, for checks that scan them all.
enum ResponseLog {
    private static let bodies = Mutex<[(path: String, body: String)]>([])
    static func record(path: String, reply: Reply) {
        guard reply.body.count < 200_000 else { return }
        bodies.withLock { $0.append((path, reply.text)) }
    }
    static var all: [(path: String, body: String)] { bodies.withLock { $0 } }
}

/// With `CONTRACT_LOG` naming a file, every answer the suite receives through ``API`` is
/// appended to it as one JSON line, `{"method", "path64", "status", "content_type64",
/// "body64"}` (the path, the content type and the body as base64 of their bytes, as
/// received), and every socket frame as `{"frame64"}`, for `scripts/contract-check` to
/// read (a body that is no JSON is none to it) and hold against `openapi.yaml`. Off
/// without the variable. Nothing is parsed here: the suite only copies bytes.
enum ContractLog {
    /// The file, opened once for appending; -1 when the log is off or cannot be opened.
    private static let descriptor: Int32 = {
        guard let path = ProcessInfo.processInfo.environment["CONTRACT_LOG"], !path.isEmpty else { return -1 }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { Issue.record("CONTRACT_LOG: cannot open \(path) (errno \(errno))") }
        return fd
    }()
    /// Held around each write, so that lines of tests running at once never interleave.
    private static let lock = Mutex(())

    static func record(method: HTTPRequest.Method, path: String, reply: Reply) {
        guard descriptor >= 0 else { return }
        let contentType = reply.headers[.contentType].map { "\"\(Data($0.utf8).base64EncodedString())\"" } ?? "null"
        let line =
            #"{"method":"\#(method.rawValue)","path64":"\#(Data(path.utf8).base64EncodedString())","status":\#(reply.status.code),"#
            + #""content_type64":\#(contentType),"body64":"\#(reply.body.base64EncodedString())"}"# + "\n"
        append(Data(line.utf8))
    }

    /// A frame a test socket received.
    static func record(frame text: String) {
        guard descriptor >= 0 else { return }
        append(Data((#"{"frame64":"\#(Data(text.utf8).base64EncodedString())"}"# + "\n").utf8))
    }

    private static func append(_ line: Data) {
        lock.withLock { _ in
            line.withUnsafeBytes { bytes in
                guard let start = bytes.baseAddress else { return }
                var offset = 0
                while offset < bytes.count {
                    let written = write(descriptor, start + offset, bytes.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
    }
}
