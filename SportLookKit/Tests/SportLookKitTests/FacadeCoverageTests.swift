import Foundation
import Testing

/// Every operation of the contract should be reachable through the facade (`client.events`,
/// …), not only through the generated `api`. The operations not wrapped yet are listed
/// here: a new operation in openapi.yaml fails this test until the facade wraps it or it
/// is listed, and a listed one fails it once wrapped (the list only shrinks).
@Suite("The facade and the contract")
struct FacadeCoverageTests {
    /// Operations an app does not call: the web client's pages (and their HEADs) and the
    /// operators' routes (the web client and monitoring use them), the socket
    /// (``ChatSession`` is its client), Stripe's webhook (Stripe's servers call it), and
    /// the Web Push key (browsers only).
    static let notForApps: Set<String> = [
        "webClientHead", "webClientAssetHead", "webClientNestedAssetHead", "webClientServiceWorkerHead", "staffConsoleHead",
        "vapidPublicKey",
        "health", "metrics", "openapi", "ready", "staffConsole", "stripeWebhook", "webClient", "webClientAsset",
        "webClientNestedAsset", "webClientServiceWorker", "webSocket",
    ]

    /// Operations the facade does not wrap yet (each would be reachable only through the
    /// internal generated client): none. A new operation must come with its facade method.
    static let awaitingFacade: Set<String> = []

    @Test("every operation in openapi.yaml has a facade method, or is listed as awaiting one")
    func everyOperationWrapped() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let contract = try String(contentsOf: package.deletingLastPathComponent().appendingPathComponent("openapi.yaml"), encoding: .utf8)
        let operations = Set(
            contract.split(separator: "\n").compactMap { line -> String? in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("operationId:") else { return nil }
                return trimmed.dropFirst("operationId:".count).trimmingCharacters(in: .whitespaces)
            })
        #expect(operations.count > 150)
        let sources = package.appendingPathComponent("Sources/SportLookKit")
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        let facade = try files.map { try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8) }.joined()
        // A facade method calls the generated operation: `api.op(` or, inside `call`, `$0.op(`.
        let wrapped = Set(operations.filter { facade.contains("api.\($0)(") || facade.contains("$0.\($0)(") })
        let missing = operations.subtracting(wrapped).subtracting(Self.awaitingFacade).subtracting(Self.notForApps)
        #expect(missing.isEmpty, "operations without a facade method: \(missing.sorted())")
        let nowWrapped = Self.awaitingFacade.intersection(wrapped)
        #expect(nowWrapped.isEmpty, "wrapped now, take them off the list: \(nowWrapped.sorted())")
        let unknown = Self.awaitingFacade.union(Self.notForApps).subtracting(operations)
        #expect(unknown.isEmpty, "listed but not in openapi.yaml: \(unknown.sorted())")
    }
}
