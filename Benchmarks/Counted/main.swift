// `sportlook-counted`: the server as `sportlook serve` runs it (configured from the
// environment), or with `bare` a Hummingbird server answering GET /health and GET /page
// (a pre-encoded page) and nothing else, for Benchmarks/instructions and Benchmarks/edge.
// A synchronous main that waits on a semaphore: under an async main the main thread waits in dispatch_main's rt_sigsuspend, where valgrind
// 3.19 (Debian 12's) dies. Detached: top-level code is the main actor's, whose queue
// nobody drains while the main thread waits.
import Dispatch
import Foundation
import Hummingbird
import SportLook

let done = DispatchSemaphore(value: 0)
let arguments = CommandLine.arguments.dropFirst()
Task.detached {
    do {
        let environment = ProcessInfo.processInfo.environment
        if arguments.first == "bare" {
            let router = Router()
            router.get("/health") { _, _ in "ok" }
            // A page of PAGE_BYTES (default: a nearby page of 50 events) encoded once:
            // what sending the bytes costs when they are ready.
            let size = environment["PAGE_BYTES"].flatMap(Int.init) ?? 48_099
            let page = ByteBuffer(string: #"{"items":[""# + String(repeating: "x", count: max(0, size - 14)) + #""]}"#)
            router.get("/page") { _, _ in
                Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: page))
            }
            let port = environment["PORT"].flatMap(Int.init) ?? 8081
            try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port))).runService()
        } else {
            let configuration = try AppConfiguration(environment: environment)
            try await buildApplication(configuration).runService()
        }
    } catch {
        FileHandle.standardError.write(Data("sportlook-counted: \(error)\n".utf8))
        exit(1)
    }
    done.signal()
}
done.wait()
