import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Each person's data on request: asking for an export, listing one's exports, and
/// downloading one through its signed link.
struct ExportsController {
    let exports: ExportService

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.post("/v1/me/export", use: requestExport)
        routes.get("/v1/me/exports", use: myExports)
    }

    func addPublicRoutes(to routes: RouteRegistrar<AppRequestContext>) {
        routes.get("/v1/exports/:id", use: download)
    }

    /// `POST /v1/me/export`
    @Sendable func requestExport(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let export = try await exports.request(for: context.userID)
        return JSONResponse(status: .accepted, ExportRepresentation(export: export, path: nil))
    }

    /// `GET /v1/me/exports`
    @Sendable func myExports(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let list = try await exports.exports(of: context.userID)
        return JSONResponse(
            Page(
                items: list.map { export in
                    ExportRepresentation(
                        export: export,
                        path: export.status == .ready ? export.expiresAt.map { exports.path(export.id, expiresAt: $0) } : nil)
                }, nextCursor: nil))
    }

    /// `GET /v1/exports/{id}?expires=…&signature=…`: the archive, to whoever holds the link.
    @Sendable func download(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.uuid("id", .export)
        let query = QueryParameters(request.uri.query)
        let archive = try await exports.download(id, expires: query.get("expires"), signature: query.get("signature"))
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/zip", .contentDisposition: "attachment; filename=\"sportlook-data.zip\"",
                .cacheControl: "no-store", .contentLength: String(archive.count),
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: archive)))
    }
}

/// An export (`DataExport` in the contract).
struct ExportRepresentation: JSONEncodable {
    var export: DataExport
    /// The signed download link's path, while it is ready.
    var path: String?

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", export.id)
        json.field("status", export.status.rawValue)
        json.field("requested_at", export.requestedAt)
        json.field("ready_at", export.readyAt)
        json.field("expires_at", export.expiresAt)
        json.field("size", export.size)
        json.field("download_path", path)
        json.objectEnd()
    }
}
