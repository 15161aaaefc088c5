// `sportlook-counted`: the server as `sportlook serve` runs it (configured from the
// environment), or with `bare` a Hummingbird server answering GET /health and nothing
// else, for Benchmarks/instructions. A synchronous main that waits on a semaphore: under
// an async main the main thread waits in dispatch_main's rt_sigsuspend, where valgrind
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
