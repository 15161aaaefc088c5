import Foundation

/// The console's abuse panel and the blocks on registration: what the panel shows (this
/// instance's refusals by limit; registrations and failed sign-ins per network on every
/// instance, over the last hour), who may block an address range or an email domain
/// (admins, each block and lift an audit row), and which registrations a block refuses.
struct AbuseService: Sendable {
    let store: AbuseStore
    let staff: StaffStore
    let refusals: RefusalCounts
    let write: Writer
    let clock: any AppClock

    /// How far back the panel looks.
    static let window: TimeInterval = 3_600
    /// Networks the panel lists at most.
    static let networksShown = 50
    /// The widest range one block may cover.
    static let widestIPv4 = 8
    static let widestIPv6 = 32

    struct Panel: Sendable {
        var since: Date
        var refusals: [(code: String, count: Int)]
        var networks: [NetworkActivity]
        var blocks: [RegistrationBlock]
    }

    func panel() async throws -> Panel {
        let since = clock.now().addingTimeInterval(-Self.window)
        return Panel(
            since: since, refusals: refusals.lastHour(), networks: try await store.activity(since: since, limit: Self.networksShown),
            blocks: try await store.blocks())
    }

    /// Blocks registrations from an address range or with an email domain (an admin);
    /// the block, its audit row, and whether it is new (the same one again answers the first).
    func block(kind: String?, value: String?, reason: String?, by actor: AuditActor) async throws -> (
        block: RegistrationBlock, entry: AuditEntry?
    ) {
        let reason = try StaffService.reason(reason)
        let now = clock.now().wholeMilliseconds
        return try await write { [store, staff] sql, _ in
            let name = try await StaffService.requireAdmin(actor, staff: staff, on: sql)
            let (kind, value) = try Self.target(kind: kind, value: value)
            if let existing = try await store.block(kind, value, on: sql) { return (existing, nil) }
            let block = RegistrationBlock(
                id: UUID(), kind: kind, value: value, reason: reason, createdBy: actor.id.map { UserSummary(id: $0, name: name) },
                createdAt: now)
            guard try await store.insert(block, on: sql) else {
                // Blocked by another admin at the same moment: theirs stands.
                guard let existing = try await store.block(kind, value, on: sql) else { throw DomainError.notFound(.block) }
                return (existing, nil)
            }
            let entry = try await staff.record(
                "registration_blocked", by: actor, name: name, target: ("registration_block", block.id.lowercased), reason: reason,
                details: ["kind": kind.rawValue, "value": value], at: now, on: sql)
            return (block, entry)
        }
    }

    /// Lets registrations from a blocked range or domain in again (an admin).
    func lift(_ id: UUID, reason: String?, by actor: AuditActor) async throws -> AuditEntry {
        let reason = try StaffService.reason(reason)
        let now = clock.now().wholeMilliseconds
        return try await write { [store, staff] sql, _ in
            let name = try await StaffService.requireAdmin(actor, staff: staff, on: sql)
            guard let lifted = try await store.delete(id, on: sql) else { throw DomainError.notFound(.block) }
            return try await staff.record(
                "registration_unblocked", by: actor, name: name, target: ("registration_block", id.lowercased), reason: reason,
                details: ["kind": lifted.kind, "value": lifted.value], at: now, on: sql)
        }
    }

    /// A block's kind and value, checked and written canonically: a range in CIDR
    /// notation (an IPv6 one a /64 or wider: addresses are counted by their /64), or a
    /// domain of at least two labels.
    static func target(kind: String?, value: String?) throws -> (RegistrationBlock.Kind, String) {
        guard let kind = kind.flatMap(RegistrationBlock.Kind.init(rawValue:)) else {
            throw DomainError.invalidParameter("kind", Sentence("must be network or email_domain"))
        }
        let text = (value ?? "").trimmingCharacters(in: .whitespaces)
        switch kind {
        case .network:
            guard text.utf8.count <= 64, let range = AddressRange(cidr: text) else {
                throw DomainError.invalidParameter("value", Sentence("must be an address range such as 203.0.113.0/24 or 2001:db8::/32"))
            }
            if range.isIPv6, range.prefixLength > 64 {
                throw DomainError.invalidParameter(
                    "value", Sentence("an IPv6 range must be a /64 or wider: addresses are counted by their /64"))
            }
            // One block refuses a network, never the whole Internet.
            guard range.prefixLength >= (range.isIPv6 ? Self.widestIPv6 : Self.widestIPv4) else {
                throw DomainError.invalidParameter(
                    "value", Sentence("a range may be at most a /\(Self.widestIPv4) (IPv4) or a /\(Self.widestIPv6) (IPv6)"))
            }
            return (kind, range.canonical)
        case .emailDomain:
            var domain = text.lowercased()
            if domain.hasPrefix("@") { domain.removeFirst() }
            if domain.hasSuffix(".") { domain.removeLast() }
            let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
            let valid =
                domain.utf8.count <= 253 && labels.count >= 2
                && labels.allSatisfy { label in
                    (1...63).contains(label.utf8.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                        && label.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
                }
            guard valid else { throw DomainError.invalidParameter("value", Sentence("must be a domain such as spam.example")) }
            return (kind, domain)
        }
    }

    // MARK: What registrations and sign-ins meet

    /// 403 `registration_blocked` when a block refuses a registration from `network` (an
    /// address as limits count it) with `email`.
    func check(registrationFrom network: String?, email: String, on sql: DatabaseSession? = nil) async throws {
        let blocks = try await store.blocks(on: sql)
        guard let block = blocks.first(where: { $0.refuses(network: network, email: email) }) else { return }
        // A 403, counted beside the limits' refusals: the panel shows a block being met.
        refusals.record("registration_blocked")
        throw DomainError.forbidden(
            "registration_blocked",
            block.kind == .network
                ? Sentence("Accounts cannot be made from this network.")
                : Sentence("Accounts cannot be made with an email address of this domain."))
    }

    /// Counts a registration from `address` (in the registration's transaction).
    func registered(from address: String?, on sql: DatabaseSession) async throws {
        guard let network = address.flatMap(AddressRange.panelNetwork) else { return }
        try await store.record(.registration, network: network, at: clock.now(), on: sql)
    }

    /// Counts a sign-in refused for its credentials from `address`.
    func failedSignIn(from address: String?) async throws {
        guard let network = address.flatMap(AddressRange.panelNetwork) else { return }
        try await store.record(.failedSignIn, network: network, at: clock.now())
    }
}
