import Foundation
internal import SportLookAPI

extension SportLookClient {
    /// The staff's console: reports, appeals, accounts, the audit log, the job queue and
    /// registration abuse (for a signed-in moderator or admin; others are refused with 403).
    /// Every act takes a reason, which the audit log keeps for good.
    public var staff: Staff { Staff(client: self) }

    /// The staff's console: reports, appeals, accounts, the audit log, the job queue and
    /// registration abuse.
    public struct Staff: Sendable {
        let client: SportLookClient

        /// What a decision on a report does to what was reported.
        public enum Decision: String, Hashable, Sendable, Codable, CaseIterable {
            /// Nothing was wrong.
            case dismiss
            /// The thing reported is taken down.
            case remove
            /// Its author is warned.
            case warn
            /// Its author may no longer make games, groups or conversations.
            case limit
            /// Its author cannot sign in (for `days`, or for good).
            case suspend
        }

        /// What a member of the staff does to an account.
        public enum AccountAction: String, Hashable, Sendable, Codable, CaseIterable {
            /// Tells them what they did.
            case warn
            /// They may no longer make games, groups or conversations.
            case limit
            /// They cannot sign in (for `days`, or for good).
            case suspend
            /// Ends a limit or a suspension.
            case lift
        }

        /// The reports waiting for a decision, the oldest due first.
        public func reports(limit: Int = 50) async throws -> [ReportCase] {
            try await client.call { try await $0.staffReports(query: .init(limit: limit)).ok.body.json }.items.map(ReportCase.init)
        }

        /// Decides every open report about `target`; the number of reports it settled and the act.
        @discardableResult
        public func decide(_ target: ReportTarget, _ decision: Decision, reason: String, days: Int? = nil) async throws -> Settled {
            let type = try SportLookClient.wire(target.type, as: Operations.StaffDecide.Input.Body.JsonPayload.TargetTypePayload.self)
            let action = try SportLookClient.wire(decision.rawValue, as: Operations.StaffDecide.Input.Body.JsonPayload.ActionPayload.self)
            let body = Operations.StaffDecide.Input.Body.json(
                .init(targetType: type, targetId: target.id, action: action, reason: reason, days: days))
            let answer = try await client.call { try await $0.staffDecide(body: body).ok.body.json }
            return Settled(count: answer.resolved, action: try AuditEntry(answer.action))
        }

        /// Accounts whose name or email holds `text`.
        public func searchAccounts(_ text: String, limit: Int = 20) async throws -> [ModeratedAccount] {
            try await client.call { try await $0.staffSearchAccounts(query: .init(q: text, limit: limit)).ok.body.json }.items.map(
                ModeratedAccount.init)
        }

        /// One account as the staff see it.
        public func account(_ id: Person.ID) async throws -> ModeratedAccount {
            try ModeratedAccount(try await client.call { try await $0.staffAccount(path: .init(id: id.description)).ok.body.json })
        }

        /// Warns, limits, suspends (for `days`, or for good) or lifts an account.
        @discardableResult
        public func act(on id: Person.ID, _ action: AccountAction, reason: String, days: Int? = nil) async throws -> AuditEntry {
            let action = try SportLookClient.wire(action.rawValue, as: Operations.StaffAct.Input.Body.JsonPayload.ActionPayload.self)
            return try AuditEntry(
                try await client.call {
                    try await $0.staffAct(path: .init(id: id.description), body: .json(.init(action: action, reason: reason, days: days)))
                        .ok.body.json
                })
        }

        /// Erases an account (admins): its person becomes "Deleted", their data goes.
        @discardableResult
        public func erase(_ id: Person.ID, reason: String) async throws -> AuditEntry {
            try AuditEntry(
                try await client.call {
                    try await $0.staffErase(path: .init(id: id.description), body: .json(.init(reason: reason))).ok.body.json
                })
        }

        /// Makes a copy of an account's data (admins); fetch it with ``SportLookClient/Me/download(_:)`` once ready.
        public func export(_ id: Person.ID, reason: String) async throws -> DataExport {
            try DataExport(
                try await client.call {
                    try await $0.staffExport(path: .init(id: id.description), body: .json(.init(reason: reason))).accepted.body.json
                })
        }

        /// The appeals waiting for a decision.
        public func appeals(limit: Int = 50) async throws -> [AppealCase] {
            try await client.call { try await $0.staffAppeals(query: .init(limit: limit)).ok.body.json }.items.map(AppealCase.init)
        }

        /// Decides an appeal: the act stands (`reverse` false) or is undone.
        @discardableResult
        public func decideAppeal(_ id: AppealCase.ID, reverse: Bool, reason: String) async throws -> AuditEntry {
            try AuditEntry(
                try await client.call {
                    try await $0.staffDecideAppeal(
                        path: .init(id: id.description), body: .json(.init(decision: reverse ? .reverse : .uphold, reason: reason))
                    ).ok.body.json
                })
        }

        /// The audit log, newest first: every entry, or those of an action or about one thing.
        public func audit(action: String? = nil, about targetID: String? = nil, limit: Int = 50) async throws -> [AuditEntry] {
            try await client.call { try await $0.staffAudit(query: .init(action: action, targetId: targetID, limit: limit)).ok.body.json }
                .items.map(AuditEntry.init)
        }

        /// The job queue: counts and the jobs that failed for good (admins).
        public func jobs() async throws -> JobOverview {
            JobOverview(try await client.call { try await $0.staffJobs().ok.body.json })
        }

        /// Queues the dead jobs again (of one kind, or all); how many, and the act.
        @discardableResult
        public func retryDeadJobs(kind: String? = nil, reason: String) async throws -> Settled {
            let settled = try await client.call { try await $0.staffRetryJobs(body: .json(.init(kind: kind, reason: reason))).ok.body.json }
            return Settled(count: settled.count, action: try AuditEntry(settled.action))
        }

        /// Forgets the dead jobs (of one kind, or all); how many, and the act.
        @discardableResult
        public func dropDeadJobs(kind: String? = nil, reason: String) async throws -> Settled {
            let settled = try await client.call { try await $0.staffDropJobs(body: .json(.init(kind: kind, reason: reason))).ok.body.json }
            return Settled(count: settled.count, action: try AuditEntry(settled.action))
        }

        /// Registrations and sign-ins refused lately, the busiest networks, the blocks in force.
        public func abuse() async throws -> AbusePanel {
            try AbusePanel(try await client.call { try await $0.staffAbusePanel().ok.body.json })
        }

        /// Refuses registrations from a network (CIDR) or an email domain; the same block
        /// made twice is the first.
        @discardableResult
        public func blockRegistrations(_ kind: RegistrationBlock.Kind, _ value: String, reason: String) async throws -> RegistrationBlock {
            let kind: Operations.StaffBlockRegistrations.Input.Body.JsonPayload.KindPayload = kind == .network ? .network : .emailDomain
            let body = Operations.StaffBlockRegistrations.Input.Body.json(.init(kind: kind, value: value, reason: reason))
            switch try await client.call({ try await $0.staffBlockRegistrations(body: body) }) {
            case .created(let created): return try RegistrationBlock(try created.body.json.block)
            case .ok(let ok): return try RegistrationBlock(try ok.body.json.block)
            case let other: throw SportLookError.unexpected(other)
            }
        }

        /// Ends a block.
        @discardableResult
        public func liftBlock(_ id: RegistrationBlock.ID, reason: String) async throws -> AuditEntry {
            try AuditEntry(
                try await client.call {
                    try await $0.staffLiftBlock(path: .init(id: id.description), body: .json(.init(reason: reason))).ok.body.json
                })
        }

        /// The staff, by role (admins).
        public func members() async throws -> [StaffMember] {
            try await client.call { try await $0.staffMembers().ok.body.json }.items.map(StaffMember.init)
        }

        /// Makes the person with `email` a moderator or an admin, or (nil) no longer staff (admins).
        @discardableResult
        public func setRole(of email: String, to role: StaffMember.Role?, reason: String) async throws -> AuditEntry {
            let role: Operations.StaffSetRole.Input.Body.JsonPayload.RolePayload? = role.map { $0 == .admin ? .admin : .moderator }
            return try AuditEntry(
                try await client.call {
                    try await $0.staffSetRole(body: .json(.init(email: email, role: role, reason: reason))).ok.body.json
                })
        }
    }
}
