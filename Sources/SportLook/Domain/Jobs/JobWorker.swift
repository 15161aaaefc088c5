import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Delivers queued jobs: notifications (the inbox row, once per job, a frame to
/// the recipient's sockets through the change feed, and a push to each of their devices
/// through its platform's channel) and
/// mail (through the mail transport).
///
/// Claims batches, is woken (``wake()``) when jobs are queued here or on another instance (polling as the
/// fallback), retries with exponential backoff and jitter, and gives up after
/// `JOB_MAX_ATTEMPTS` into `dead`, keeping the last error. On shutdown it
/// finishes the batch in hand and stops.
final class JobWorker: Service, Sendable {
    let name: String
    private let jobs: JobStore
    private let inbox: InboxStore
    private let safety: SafetyStore
    /// A notification about a members-only game reaches its group's members alone.
    private let access: EventAccess
    /// Timed work (reminders, decisions, offers, series): every due ``ScheduledJob`` runs
    /// through its one dispatch. Without it, such a job waits for a worker that has it.
    private let scheduled: ScheduledWork?
    private let channels: PushChannels
    private let mailer: MailTransport?
    private let codes: EmailCodeService?
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

    init(
        name: String, jobs: JobStore, inbox: InboxStore, safety: SafetyStore, access: EventAccess, scheduled: ScheduledWork?,
        channels: PushChannels, mailer: MailTransport?, codes: EmailCodeService?, write: Writer, clock: any AppClock, logger: Logger,
        settings: Settings
    ) {
        self.name = name
        self.jobs = jobs
        self.inbox = inbox
        self.safety = safety
        self.access = access
        self.scheduled = scheduled
        self.channels = channels
        self.mailer = mailer
        self.codes = codes
        self.write = write
        // Inbox entries carry the service's time; the queue runs on the wall clock.
        self.clock = clock
        self.queueClock = jobs.clock
        self.logger = logger
        self.settings = settings
    }

    /// Jobs were queued (or may have been, while the bus was away): look at the queue now.
    func wake() {
        wakeup.signal()
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            var failures = 0
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                do {
                    let worked = try await runOnce()
                    failures = 0
                    if !worked { await wakeup.wait(timeout: .milliseconds(Int64(settings.pollInterval * 1000))) }
                } catch {
                    failures += 1
                    logger.warning(
                        "job worker cannot reach the database",
                        metadata: ["worker": "\(name)", "error": "\(String(describing: error).prefix(200))"])
                    await wakeup.wait(timeout: .milliseconds(Int64(min(5_000, 100 * (1 << min(failures, 6))))))
                }
            }
        } onGracefulShutdown: { [wakeup] in
            wakeup.signal()
        }
    }

    /// Claims and delivers one batch; `false` when nothing was due. Batches of up to
    /// 256: a batch's statements are the same few whatever its size, so a burst of
    /// 10,000 on PostgreSQL is delivered as fast as it is queued (with 64 a batch, the
    /// queue stood behind the burst: p99 1.3–1.4 s against 0.4–0.6 s). A batch stays
    /// within its lease: mails, slow to send, at most ``mailsPerBatch`` of it (the
    /// others go back to the queue at once), pushes ``pushesAtOnce`` at a time.
    @discardableResult
    func runOnce(limit: Int = 256) async throws -> Bool {
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
        var mails: [(job: JobStore.Claimed, request: MailRequest)] = []
        var readable: [JobStore.Claimed] = []
        var later: [UUID] = []
        var outcomes: [UUID: DeliveryOutcome] = [:]
        for job in claimed {
            let payload = Data(job.payload.utf8)
            if ScheduledJob.Kind(rawValue: job.kind) != nil {
                guard let scheduled else {
                    later.append(job.id)
                    continue
                }
                // Scheduled work: what it queues (notifications, events) the next batches handle.
                do {
                    try await scheduled.run(try ScheduledJob(kind: job.kind, payload: job.payload))
                } catch let error as DecodingError {
                    outcomes[job.id] = .failed(reason: "cannot be read: \(String(describing: error).prefix(300))")
                } catch {
                    outcomes[job.id] = .retry(after: nil, reason: "\(String(describing: error).prefix(200))")
                }
            } else if job.kind == MailRequest.jobKind, mails.count == Self.mailsPerBatch {
                // Mails are slow to send: the batch's share is full, the rest wait their turn.
                later.append(job.id)
                continue
            } else if job.kind == MailRequest.jobKind, let request = try? JSONDecoder().decode(MailRequest.self, from: payload) {
                mails.append((job, request))
            } else if job.kind != MailRequest.jobKind, let message = try? JSONDecoder().decode(NotificationMessage.self, from: payload) {
                work.append(Work(job: job, message: message))
            } else {
                try await jobs.fail(job.id, worker: name, error: "payload cannot be read", retryAt: nil, at: queueClock.now())
                Counter(label: "sportlook_jobs_dead_total", dimensions: [("kind", job.kind)]).increment()
                continue
            }
            readable.append(job)
        }
        try await jobs.release(later, worker: name)
        let pushes = try await notify(work)
        outcomes.merge(pushes.outcomes) { first, _ in first }
        outcomes.merge(await send(mails)) { first, _ in first }

        // Devices settled for jobs not done (tried again, or dead: `retry-dead` queues
        // it again) are recorded first: a later attempt sends only to the devices still
        // owed. A job done forgets its receipts.
        let unfinished = Set(readable.filter { if case .retry = outcomes[$0.id] { true } else { false } }.map(\.id))
        try await inbox.settleReceipts(
            record: pushes.settled.filter { unfinished.contains($0.job) },
            forget: pushes.hadReceipts.filter { !unfinished.contains($0) }
        )
        try await inbox.removeDevices(ids: pushes.gone)

        // Settle every job.
        let finished = queueClock.now()
        var done: [UUID] = []
        for job in readable {
            switch outcomes[job.id] ?? .delivered {
            case .delivered:
                done.append(job.id)
            case .retry(let after, let reason):
                try await retry(job, reason: reason, after: after, at: finished)
            case .failed(let reason):
                try await jobs.fail(job.id, worker: name, error: reason, retryAt: nil, at: finished)
                Counter(label: "sportlook_jobs_dead_total", dimensions: [("kind", job.kind)]).increment()
                logger.warning("job dead", metadata: ["job": "\(job.id)", "kind": "\(job.kind)", "error": "\(reason)"])
            }
        }
        try await jobs.complete(done, worker: name, at: finished)
        for job in readable where done.contains(job.id) {
            Counter(label: "sportlook_jobs_delivered_total", dimensions: [("kind", job.kind)]).increment()
            Timer(label: "sportlook_job_delivery_lag_seconds").recordInterval(since: job.enqueuedAt, now: finished)
        }
    }

    /// One job's devices on one channel.
    private struct PushSend: Sendable {
        var job: UUID
        var channel: any PushChannel
        var devices: [PushDevice]
        var content: PushContent
    }

    /// How a batch's pushes went: per job, and per device.
    private struct Pushes {
        var outcomes: [UUID: DeliveryOutcome] = [:]
        /// Devices each job is done with (delivered, gone, or final for that device).
        var settled: [(job: UUID, device: UUID)] = []
        /// Registrations their service says are gone.
        var gone: [UUID] = []
        /// Jobs that had receipts from earlier attempts.
        var hadReceipts: [UUID] = []
    }

    /// Notifications: the inbox rows, then a push to each device still owed one.
    private func notify(_ work: [Work]) async throws -> Pushes {
        guard !work.isEmpty else { return Pushes() }
        // 1. The inbox, all of the batch in one transaction.
        let now = clock.now()
        // New inbox rows are announced to every instance's sockets by the writer.
        let work = try await write { [work, inbox, safety, access] sql, changes in
            // A notification queued before its recipient blocked (or was blocked by)
            // someone it names is not delivered: the block removed what was delivered
            // already, and its job is done with nothing sent. Read in the transaction
            // that writes the rows, not from a cache, so a block committed first is seen.
            // The recipients' rows are held first, as a block holds the blocker's, so the
            // two take turns (under READ COMMITTED a block could otherwise commit between
            // this read and the rows' insert, its delete missing them).
            try await safety.lockPeople(Set(work.map(\.message.userID)), on: sql)
            let blocked = try await safety.blockedEitherWay(among: Set(work.map(\.message.userID)), on: sql)
            // Nor one about a members-only game to someone no longer in its group.
            let outside = try await access.undeliverable(work.map(\.message), on: sql)
            var delivered = work.indices.filter { !outside.contains($0) }.map { work[$0] }.filter {
                !$0.message.names(blocked[$0.message.userID] ?? [])
            }
            guard !delivered.isEmpty else { return delivered }
            let rows = try await inbox.deliver(delivered.map { ($0.message, $0.job.id) }, at: now, on: sql)
            for (i, (id, isNew)) in rows.enumerated() {
                delivered[i].notificationID = id
                if isNew { changes.record(.notification(user: delivered[i].message.userID, id: id)) }
            }
            return delivered
        }

        // 2. Pushes, concurrently: each job to each device it still owes, grouped by channel.
        guard !channels.isEmpty else { return Pushes() }
        let devices = try await inbox.devices(of: work.map(\.message.userID), at: clock.now())
        // Any attempt may follow earlier ones (a dead job queued again starts its count anew).
        let receipts = try await inbox.receipts(jobs: work.map(\.job.id))
        let badged = Set(work.map(\.message.userID).filter { user in devices[user]?.contains { $0.platform == .ios } ?? false })
        let badges = channels.apns == nil ? [:] : try await inbox.unreadCounts(users: Array(badged))
        let channels = channels
        var pushes = Pushes()
        pushes.hadReceipts = Array(receipts.keys)
        // Each job's devices of one channel are one send; at most `pushesAtOnce` run at once.
        var sends: [PushSend] = []
        for item in work {
            let owed = (devices[item.message.userID] ?? []).filter { !(receipts[item.job.id]?.contains($0.id) ?? false) }
            let content = PushContent(
                jobID: item.job.id, notificationID: item.notificationID, message: item.message, badge: badges[item.message.userID] ?? 0)
            var byChannel: [String: (channel: any PushChannel, devices: [PushDevice])] = [:]
            for device in owed {
                guard let channel = channels.channel(for: device) else { continue }
                byChannel[channel.name, default: (channel, [])].devices.append(device)
            }
            for (channel, devices) in byChannel.values {
                sends.append(PushSend(job: item.job.id, channel: channel, devices: devices, content: content))
            }
        }
        await withTaskGroup(of: (UUID, [UUID: DeviceOutcome]).self) { group in
            var waiting = sends[...]
            func start(_ send: PushSend) -> @Sendable () async -> (UUID, [UUID: DeviceOutcome]) {
                { [logger] in
                    let started = ContinuousClock.now
                    let outcomes = await send.channel.send(send.content, to: send.devices)
                    Self.record(outcomes, channel: send.channel.name, job: send.job, since: started, logger: logger)
                    return (send.job, outcomes)
                }
            }
            for send in waiting.prefix(Self.pushesAtOnce) { group.addTask(operation: start(send)) }
            waiting = waiting.dropFirst(Self.pushesAtOnce)
            var retries: [UUID: [(after: TimeInterval?, reason: String)]] = [:]
            for await (job, outcomes) in group {
                if let send = waiting.popFirst() { group.addTask(operation: start(send)) }
                for (device, outcome) in outcomes {
                    switch outcome {
                    case .retry(let after, let reason, _): retries[job, default: []].append((after, reason))
                    case .gone:
                        pushes.gone.append(device)
                        pushes.settled.append((job, device))
                    case .delivered, .failed: pushes.settled.append((job, device))
                    }
                }
            }
            for (job, owed) in retries {
                let after = owed.compactMap(\.after).max()
                pushes.outcomes[job] = .retry(
                    after: after, reason: "\(owed.count) device(s) owed a push: " + Set(owed.map(\.reason)).sorted().joined(separator: ", ")
                )
            }
        }
        return pushes
    }

    /// Metrics per channel, and a log line for each device a push failed for.
    private static func record(
        _ outcomes: [UUID: DeviceOutcome], channel: String, job: UUID, since started: ContinuousClock.Instant, logger: Logger
    ) {
        let elapsed = ContinuousClock.now - started
        Timer(label: "sportlook_push_seconds", dimensions: [("channel", channel)]).recordNanoseconds(
            elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        for (device, outcome) in outcomes {
            switch outcome {
            case .delivered:
                Counter(label: "sportlook_push_sent_total", dimensions: [("channel", channel)]).increment()
            case .gone:
                Counter(label: "sportlook_push_removed_total", dimensions: [("channel", channel)]).increment()
            case .retry(_, let reason, let detail):
                Counter(label: "sportlook_push_failed_total", dimensions: [("channel", channel), ("reason", reason), ("final", "false")])
                    .increment()
                logger.info(
                    "push will be retried",
                    metadata: [
                        "channel": "\(channel)", "job": "\(job)", "device": "\(device)", "reason": "\(reason)", "detail": "\(detail)",
                    ])
            case .failed(let reason, let detail):
                Counter(label: "sportlook_push_failed_total", dimensions: [("channel", channel), ("reason", reason), ("final", "true")])
                    .increment()
                logger.warning(
                    "push refused for a device",
                    metadata: [
                        "channel": "\(channel)", "job": "\(job)", "device": "\(device)", "reason": "\(reason)", "detail": "\(detail)",
                    ])
            }
        }
    }

    /// Mails, a few at a time: each is composed (a code issued, an export's link read),
    /// then sent. A mail job with no transport configured is dead (queue it again with
    /// `sportlook jobs retry-dead --kind mail` once there is one).
    private func send(_ mails: [(job: JobStore.Claimed, request: MailRequest)]) async -> [UUID: DeliveryOutcome] {
        guard let mailer else {
            return Dictionary(
                uniqueKeysWithValues: mails.map {
                    ($0.job.id, .failed(reason: "no mail transport is configured (SMTP_URL, or MAIL_TRANSPORT=log)"))
                })
        }
        var out: [UUID: DeliveryOutcome] = [:]
        for chunk in mails.chunks(of: Self.mailsAtOnce) {
            await withTaskGroup(of: (UUID, DeliveryOutcome).self) { group in
                for (job, request) in chunk {
                    group.addTask { [codes, scheduled] in
                        do {
                            let composed: MailMessage?
                            if request.purpose == "export" {
                                guard let exports = scheduled?.exports, exports.mailLinks != nil, let id = request.export else {
                                    return (job.id, .retry(after: nil, reason: "this instance has no PUBLIC_URL to write the link with"))
                                }
                                composed = try await exports.mail(for: id)
                            } else {
                                guard let codes else { return (job.id, .failed(reason: "this worker does not issue codes")) }
                                composed = try await codes.mail(for: request)
                            }
                            guard let mail = composed else { return (job.id, .delivered) }
                            return (job.id, await mailer.send(mail, id: job.id))
                        } catch {
                            return (job.id, .retry(after: nil, reason: "cannot compose the mail: \(String(describing: error).prefix(200))"))
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
    /// Mails one batch sends at most (four rounds of ``mailsAtOnce``).
    static let mailsPerBatch = 16
    /// Push sends (a job's devices on one channel) one worker runs at once.
    static let pushesAtOnce = 64

    private func retry(_ job: JobStore.Claimed, reason: String, after: TimeInterval?, at now: Date) async throws {
        guard job.attempts < settings.maxAttempts else {
            try await jobs.fail(job.id, worker: name, error: reason, retryAt: nil, at: now)
            Counter(label: "sportlook_jobs_dead_total", dimensions: [("kind", job.kind)]).increment()
            logger.warning(
                "job dead after \(job.attempts) attempts", metadata: ["job": "\(job.id)", "kind": "\(job.kind)", "error": "\(reason)"])
            return
        }
        // Exponential backoff with jitter: base × 2^(attempt − 1), scaled by 0.5…1, at most 10 minutes.
        let backoff = min(600, settings.retryBase * pow(2, Double(job.attempts - 1))) * Double.random(in: 0.5...1)
        try await jobs.fail(job.id, worker: name, error: reason, retryAt: now.addingTimeInterval(max(backoff, after ?? 0)), at: now)
        Counter(label: "sportlook_jobs_retried_total", dimensions: [("kind", job.kind)]).increment()
        logger.info(
            "job will be retried",
            metadata: ["job": "\(job.id)", "kind": "\(job.kind)", "attempt": "\(job.attempts)", "error": "\(reason)"])
    }
}

extension Timer {
    func recordInterval(since start: Date, now: Date) {
        recordNanoseconds(Int64(max(0, now.timeIntervalSince(start)) * 1_000_000_000))
    }
}
