import Synchronization

/// Work many callers ask for at once, done in batches: while one batch runs, what is
/// asked meanwhile waits, and the next batch takes it all. Ten thousand sockets
/// opening at once (an instance restarted, every client reconnecting) are then a few
/// dozen reads and writes, not ten thousand each, holding the database's connections
/// while everything else waits past its deadline.
///
/// No task that waits for work: the first caller to find no batch running runs it
/// (on a task of its own, which the caller's cancellation does not reach), and hands
/// the next batch, when there is one, to its first caller. A call returns once the
/// batch that holds it has run (or throws that batch's error), with what the batch
/// gave its key (`nil` if nothing). Of two calls with one key in one batch, the later
/// one's input is the one the batch is given; both are given the key's output.
final class Gathering<Key: Hashable & Sendable, Input: Sendable, Output: Sendable>: Sendable {
    typealias Run = @Sendable ([Key: Input]) async throws -> [Key: Output]

    private enum Turn {
        case done(Output?)
        case run
    }

    private struct Batch {
        var inputs: [Key: Input] = [:]
        var callers: [(key: Key, continuation: CheckedContinuation<Turn, any Error>)] = []
    }

    private struct State {
        var running = false
        var waiting = Batch()
        var batches = 0
    }

    private let run: Run
    private let state = Mutex(State())

    init(_ run: @escaping Run) {
        self.run = run
    }

    /// Batches run so far (a test checks that calls made at once share them).
    var batchCount: Int { state.withLock { $0.batches } }
    /// Calls waiting for the next batch (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.callers.count } }

    /// Adds `input` for `key` to the next batch, and waits until a batch holding it has run.
    @discardableResult
    func call(_ key: Key, _ input: Input) async throws -> Output? {
        let turn: Turn = try await withCheckedThrowingContinuation { continuation in
            let first = state.withLock { s in
                s.waiting.inputs[key] = input
                s.waiting.callers.append((key, continuation))
                guard !s.running else { return false }
                s.running = true
                return true
            }
            if first { continuation.resume(returning: .run) }
        }
        switch turn {
        case .done(let output): return output
        case .run: return try await runBatches(for: key)
        }
    }

    /// Runs the waiting batch, whose first caller is this one; then, if calls came
    /// meanwhile, hands the next batch to its first caller (who stays first among
    /// that batch's callers: it is answered by running it).
    private func runBatches(for key: Key) async throws -> Output? {
        let batch = state.withLock { s in
            defer { s.waiting = Batch() }
            s.batches += 1
            return s.waiting
        }
        // On a task of its own: the batch is everyone's, so the cancellation of the
        // caller that runs it (a socket closing) does not end it for the others.
        let inputs = batch.inputs
        let result = await Task { [run] in try await run(inputs) }.result
        let next = state.withLock { s -> CheckedContinuation<Turn, any Error>? in
            guard let first = s.waiting.callers.first else {
                s.running = false
                return nil
            }
            return first.continuation
        }
        for caller in batch.callers.dropFirst() {
            switch result {
            case .success(let outputs): caller.continuation.resume(returning: .done(outputs[caller.key]))
            case .failure(let error): caller.continuation.resume(throwing: error)
            }
        }
        next?.resume(returning: .run)
        return try result.get()[key]
    }
}
