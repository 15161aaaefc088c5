import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Delivers queued jobs: notifications (the inbox row, once per job, a frame to
/// the recipient's sockets through the bus, and a push through the gateway) and
/// mail (through the mail transport).
///
/// Claims batches, is woken by the bus when jobs are queued (polling as the
/// fallback), retries with exponential backoff and jitter, and gives up after
/// `JOB_MAX_ATTEMPTS` into `dead`, keeping the last error. On shutdown it
/// finishes the batch in hand and stops.
final class JobWorker: Service, Sendable {
    let name: String
    private let jobs: JobStore
    private let inbox: InboxStore
    private let gateway: PushGateway?
    private let mailer: MailTransport?
    private let codes: EmailCodeService?
    private let bus: Bus
    private let write: Writer
    private let clock: any AppClock
    private let queueClock: any AppClock
    private let logger: Logger
    private let settings: Settings
    private let wakeup = Wakeup()

    /// How the queue is worked.
    struct Settings: Sendable {
        /// Seconds between looks at the queue when nothing wakes the worker.
        var pollInterval: TimeInterval
        /// Seconds a claimed job is this worker's before another may take it.
        var lease: TimeInterval
        /// Attempts before a job is dead.
        var maxAttempts: Int
        /// Seconds before the first retry; each next one waits twice as long (at most 10 minutes).
        var retryBase: TimeInterval
    }

    init(name: String, jobs: JobStore, inbox: InboxStore, gateway: PushGateway?, mailer: MailTransport?, codes: EmailCodeService?, bus: Bus, write: Writer, clock: any AppClock, logger: Logger, settings: Settings) {
        self.name = name
        self.jobs = jobs
        self.inbox = inbox
        self.gateway = gateway
        self.mailer = mailer
        self.codes = codes
        self.bus = bus
        self.write = write
        // Inbox entries carry the service's time; the queue runs on the wall clock.
        self.clock = clock
        self.queueClock = jobs.clock
        self.logger = logger
        self.settings = settings
    }

    func run() async throws {
        let messages = bus.subscribe()
        let listener = Task { [wakeup] in
            for await message in messages where message == .jobs || message == .resync { wakeup.signal() }
        }
        defer { listener.cancel() }
        await withGracefulShutdownHandler {
            var failures = 0
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                do {
                    let worked = try await runOnce()
                    failures = 0
                    if !worked { await wakeup.wait(timeout: .milliseconds(Int64(settings.pollInterval * 1000))) }
                } catch {
                    failures += 1
                    logger.warning("job worker cannot reach the database", metadata: ["worker": "\(name)", "error": "\(String(describing: error).prefix(200))"])
                    await wakeup.wait(timeout: .milliseconds(Int64(min(5_000, 100 * (1 << min(failures, 6))))))
                }
            }
        } onGracefulShutdown: { [wakeup] in
            wakeup.signal()
        }
    }

    /// Claims and delivers one batch; `false` when nothing was due.
    @discardableResult
    func runOnce(limit: Int = 64) async throws -> Bool {
        let now = queueClock.now()
        let claimed = try await jobs.claim(limit: limit, worker: name, now: now, leaseUntil: now.addingTimeInterval(settings.lease))
        guard !claimed.isEmpty else { return false }
        try await deliver(claimed)
        return true
    }

    private struct Work: Sendable {
        var job: JobStore.Claimed
        var message: NotificationMessage
        var notificationID = UUID()
    }

    private func deliver(_ claimed: [JobStore.Claimed]) async throws {
        var work: [Work] = []
        var mails: [(job: JobStore.Claimed, request: CodeMailRequest)] = []
        var readable: [JobStore.Claimed] = []
        for job in claimed {
            let payload = Data(job.payload.utf8)
            if job.kind == CodeMailRequest.jobKind, let request = try? JSONDecoder().decode(CodeMailRequest.self, from: payload) {
                mails.append((job, request))
            } else if job.kind != CodeMailRequest.jobKind, let message = try? JSONDecoder().decode(NotificationMessage.self, from: payload) {
                work.append(Work(job: job, message: message))
            } else {
                try await jobs.fail(job.id, worker: name, error: "payload cannot be read", retryAt: nil, at: queueClock.now())
                Counter(label: "sportlook_jobs_dead_total", dimensions: [("kind", job.kind)]).increment()
                continue
            }
            readable.append(job)
        }
        var outcomes = try await notify(work)
        outcomes.merge(await send(mails)) { first, _ in first }

        // Settle every job.
        let finished = queueClock.now()
        var done: [UUID] = []
        var gone: [String] = []
        for job in readable {
            switch outcomes[job.id] ?? .delivered {
            case .delivered:
                done.append(job.id)
            case .gone(let tokens):
                gone += tokens
                done.append(job.id)
            case .retry(let after, let reason):
                try await retry(job, reason: reason, after: after, at: finished)
            case .failed(let reason):
                try await jobs.fail(job.id, worker: name, error: reason, retryAt: nil, at: finished)
                Counter(label: "sportlook_jobs_dead_total", dimensions: [("kind", job.kind)]).increment()
                logger.warning("job dead", metadata: ["job": "\(job.id)", "kind": "\(job.kind)", "error": "\(reason)"])
            }
        }
        try await inbox.removeDevices(tokens: gone)
        try await jobs.complete(done, worker: name, at: finished)
        for job in readable where done.contains(job.id) {
            Counter(label: "sportlook_jobs_delivered_total", dimensions: [("kind", job.kind)]).increment()
            Timer(label: "sportlook_job_delivery_lag_seconds").recordInterval(since: job.enqueuedAt, now: finished)
        }
    }

    /// Notifications: the inbox rows, then pushes; how each push went (none: no push to make).
    private func notify(_ work: [Work]) async throws -> [UUID: DeliveryOutcome] {
        guard !work.isEmpty else { return [:] }
        // 1. The inbox, all of the batch in one transaction.
        let now = clock.now()
        // New inbox rows are announced to every instance's sockets by the writer.
        let work = try await write { [work, inbox] sql, effects in
            var delivered = work
            let rows = try await inbox.deliver(work.map { ($0.message, $0.job.id) }, at: now, on: sql)
            for (i, (id, isNew)) in rows.enumerated() {
                delivered[i].notificationID = id
                if isNew { effects.messages.append(.notification(user: delivered[i].message.userID, id: id)) }
            }
            return delivered
        }

        // 2. Push, concurrently, for those with devices.
        guard let gateway else { return [:] }
        let devices = try await inbox.devices(of: work.map(\.message.userID), at: clock.now())
        return await withTaskGroup(of: (UUID, DeliveryOutcome).self) { group in
            for item in work {
                guard let theirs = devices[item.message.userID], !theirs.isEmpty else { continue }
                group.addTask {
                    (item.job.id, await gateway.send(jobID: item.job.id, notificationID: item.notificationID, message: item.message, devices: theirs))
                }
            }
            var out: [UUID: DeliveryOutcome] = [:]
            for await (id, outcome) in group { out[id] = outcome }
            return out
        }
    }

    /// Code mails, a few at a time: each issues its code, then sends it. A mail job
    /// with no transport configured is dead (queue it again with `sportlook jobs
    /// retry-dead --kind mail` once there is one).
    private func send(_ mails: [(job: JobStore.Claimed, request: CodeMailRequest)]) async -> [UUID: DeliveryOutcome] {
        guard let mailer, let codes else {
            return Dictionary(uniqueKeysWithValues: mails.map { ($0.job.id, .failed(reason: "no mail transport is configured (SMTP_URL, or MAIL_TRANSPORT=log)")) })
        }
        var out: [UUID: DeliveryOutcome] = [:]
        for start in stride(from: 0, to: mails.count, by: Self.mailsAtOnce) {
            let chunk = mails[start..<min(start + Self.mailsAtOnce, mails.count)]
            await withTaskGroup(of: (UUID, DeliveryOutcome).self) { group in
                for (job, request) in chunk {
                    group.addTask {
                        do {
                            guard let mail = try await codes.mail(for: request) else { return (job.id, .delivered) }
                            return (job.id, await mailer.send(mail, id: job.id))
                        } catch {
                            return (job.id, .retry(after: nil, reason: "cannot issue the code: \(String(describing: error).prefix(200))"))
                        }
                    }
                }
                for await (id, outcome) in group { out[id] = outcome }
            }
        }
        return out
    }

    /// SMTP connections one worker opens at once.
    static let mailsAtOnce = 4

    private func retry(_ job: JobStore.Claimed, reason: String, after: TimeInterval?, at now: Date) async throws {
        guard job.attempts < settings.maxAttempts else {
            try await jobs.fail(job.id, worker: name, error: reason, retryAt: nil, at: now)
            Counter(label: "sportlook_jobs_dead_total", dimensions: [("kind", job.kind)]).increment()
            logger.warning("job dead after \(job.attempts) attempts", metadata: ["job": "\(job.id)", "kind": "\(job.kind)", "error": "\(reason)"])
            return
        }
        // Exponential backoff with jitter: base × 2^(attempt − 1), scaled by 0.5…1, at most 10 minutes.
        let backoff = min(600, settings.retryBase * pow(2, Double(job.attempts - 1))) * Double.random(in: 0.5...1)
        try await jobs.fail(job.id, worker: name, error: reason, retryAt: now.addingTimeInterval(max(backoff, after ?? 0)), at: now)
        Counter(label: "sportlook_jobs_retried_total", dimensions: [("kind", job.kind)]).increment()
        logger.info("job will be retried", metadata: ["job": "\(job.id)", "kind": "\(job.kind)", "attempt": "\(job.attempts)", "error": "\(reason)"])
    }
}

extension Timer {
    func recordInterval(since start: Date, now: Date) {
        recordNanoseconds(Int64(max(0, now.timeIntervalSince(start)) * 1_000_000_000))
    }
}
