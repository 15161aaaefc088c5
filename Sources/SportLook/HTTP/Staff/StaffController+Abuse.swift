import Foundation
import Hummingbird

/// The abuse panel's routes: what the server counted in the last hour, and the blocks on
/// registration (admins add and lift them).
extension StaffController {
    struct BlockInput: Decodable, Sendable {
        var kind: String?
        var value: String?
        var reason: String?
    }

    /// `GET /v1/staff/abuse`
    @Sendable func abusePanel(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(AbusePanelRepresentation(panel: try await abuse.panel()))
    }

    /// `POST /v1/staff/abuse/blocks` (admins): 201 with the block and its audit row; 200
    /// with the block alone when the range or domain is blocked already.
    @Sendable func blockRegistrations(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await requireAdmin(context)
        let input = try await RequestBody.decode(BlockInput.self, from: request, context: context)
        let (block, entry) = try await abuse.block(kind: input.kind, value: input.value, reason: input.reason, by: actor(context))
        return JSONResponse(status: entry == nil ? .ok : .created, BlockRepresentation(block: block, entry: entry))
    }

    /// `POST /v1/staff/abuse/blocks/{id}/lift` (admins): its audit row.
    @Sendable func liftBlock(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await requireAdmin(context)
        let id = try context.uuid("id", .block)
        let input = try await RequestBody.decode(ReasonInput.self, from: request, context: context)
        return JSONResponse(AuditEntryRepresentation(entry: try await abuse.lift(id, reason: input.reason, by: actor(context))))
    }
}

/// The abuse panel (`AbusePanel` in the contract).
struct AbusePanelRepresentation: JSONEncodable {
    var panel: AbuseService.Panel

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("since", panel.since)
        json.key("refusals")
        json.arrayStart()
        for refusal in panel.refusals {
            json.objectStart()
            json.field("code", refusal.code)
            json.field("count", refusal.count)
            json.objectEnd()
        }
        json.arrayEnd()
        json.key("networks")
        json.arrayStart()
        for network in panel.networks {
            json.objectStart()
            json.field("network", network.network)
            json.field("registrations", network.registrations)
            json.field("failed_sign_ins", network.failedSignIns)
            json.objectEnd()
        }
        json.arrayEnd()
        json.key("blocks")
        json.arrayStart()
        for block in panel.blocks { Self.block(block, to: &json) }
        json.arrayEnd()
        json.objectEnd()
    }

    static func block(_ block: RegistrationBlock, to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", block.id)
        json.field("kind", block.kind.rawValue)
        json.field("value", block.value)
        json.field("reason", block.reason)
        json.key("created_by")
        if let by = block.createdBy { ReportGroupRepresentation.person(by, to: &json) } else { json.null() }
        json.field("created_at", block.createdAt)
        json.objectEnd()
    }
}

/// A block just made, with its audit row (`BlockMade`); the row is null for one made before.
struct BlockRepresentation: JSONEncodable {
    var block: RegistrationBlock
    var entry: AuditEntry?

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("block")
        AbusePanelRepresentation.block(block, to: &json)
        json.key("action")
        if let entry { AuditEntryRepresentation(entry: entry).encode(to: &json) } else { json.null() }
        json.objectEnd()
    }
}
