import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore

/// Uploads (`POST /v1/media`), the caller's upload (`GET /v1/media/{id}`), and the
/// stored variants (`GET`/`HEAD /media/{key}`).
struct MediaController {
    let media: MediaService
    let links: MediaLinks

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.post("/v1/media", use: uploadMedia)
        routes.get("/v1/media/:id", use: getMedia)
    }

    func addPublicRoutes(to routes: RouteRegistrar<AppRequestContext>) {
        routes.get("/media/:key", use: getMediaFile)
        routes.head("/media/:key", use: headMediaFile)
    }

    /// The image bytes of an upload: the raw body, or the file of a multipart form.
    func uploadedFile(_ request: Request, arrivedAt: Date) async throws -> [UInt8] {
        let limit = media.settings.maxBytes
        let tooLarge = DomainError(
            .tooLarge, code: "payload_too_large", message: Sentence("An upload may be at most \(limit / 1_000_000) MB."))
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit + 64 * 1024 { throw tooLarge }
        let contentType = request.headers[.contentType] ?? ""
        let boundary: String?
        do {
            boundary = try MultipartForm.boundary(contentType: contentType)
        } catch {
            throw DomainError.invalidParameter("Content-Type", Sentence("a multipart/form-data body needs a boundary"))
        }
        // A form wraps the file in a few hundred bytes of headers: allow for them.
        let buffer = try await collect(
            request.body, upTo: boundary == nil ? limit : limit + 64 * 1024, tooLarge: tooLarge,
            pace: media.settings.pace(from: arrivedAt))
        let body = Array(buffer.readableBytesView)
        guard let boundary else {
            guard !body.isEmpty else {
                throw DomainError(.invalid, code: "invalid_image", message: Sentence("The request needs the image as its body."))
            }
            return body
        }
        let file: [UInt8]
        do {
            file = try MultipartForm.file(in: body, boundary: boundary)
        } catch {
            throw DomainError(.invalid, code: "invalid_form", message: Sentence("The form cannot be read; send one file part."))
        }
        guard file.count <= limit else { throw tooLarge }
        guard !file.isEmpty else { throw DomainError(.invalid, code: "invalid_image", message: Sentence("The form's file is empty.")) }
        return file
    }

    /// The body, as long as it keeps `pace` (408 `upload_too_slow` once it falls
    /// behind: checked on the app's clock as each chunk arrives, and by a deadline
    /// that each chunk moves on, so a body that stops arriving is answered too).
    func collect(_ body: HummingbirdCore.RequestBody, upTo limit: Int, tooLarge: DomainError, pace: UploadPace) async throws -> ByteBuffer {
        let clock = media.clock
        let timeLeft: @Sendable (Int) -> Duration = { received in
            .milliseconds(max(0, Int64((pace.deadline(afterReceiving: received).timeIntervalSince(clock.now()) * 1_000).rounded(.up))))
        }
        do {
            return try await withRenewableDeadline(timeLeft(0)) { renew in
                var buffer = ByteBuffer()
                for try await chunk in body {
                    if pace.isBehind(received: buffer.readableBytes, at: clock.now()) { throw pace.refusal }
                    guard buffer.readableBytes + chunk.readableBytes <= limit else { throw tooLarge }
                    buffer.writeImmutableBuffer(chunk)
                    renew(timeLeft(buffer.readableBytes))
                }
                return buffer
            }
        } catch is DeadlineExceeded {
            throw pace.refusal
        } catch let refusal as DomainError {
            throw refusal
        } catch {
            throw DomainError(.invalid, code: "invalid_image", message: Sentence("The body did not arrive whole."))
        }
    }

    /// A stored variant: immutable, so cached for a year and validated by its own hash;
    /// a chat image only through a signed link, and cached privately until it ends.
    func serve(_ request: Request, context: AppRequestContext, body: Bool) async throws -> Response {
        guard let key = context.parameters.get("key"), isBlobKey(key) else { throw DomainError.notFound(.media) }
        var cacheControl = "public, max-age=31536000, immutable"
        if isPrivateBlobKey(key) {
            let q = QueryReader(request)
            switch links.signer.check(key, expires: q.raw("expires"), signature: q.raw("signature")) {
            case .valid(let seconds): cacheControl = "private, max-age=\(seconds)"
            case .expired:
                throw DomainError(
                    .forbidden, code: "link_expired", message: Sentence("This link has expired; read the chat again for a fresh one."))
            case .invalid:
                throw DomainError(
                    .forbidden, code: "invalid_link",
                    message: Sentence("Chat images are served only through the signed links the chat gives its members."))
            }
            // A deleted message's image goes at once, its links with it.
            guard try await media.isServed(key) else { throw DomainError.notFound(.media) }
        }
        let etag = "\"\(key.prefix(64))\""
        var headers: HTTPFields = [
            .eTag: etag,
            .cacheControl: cacheControl,
            .contentType: "image/jpeg",
            .acceptRanges: "bytes",
            .init("X-Content-Type-Options")!: "nosniff",
            .contentSecurityPolicy: "default-src 'none'; sandbox",
        ]
        if let tags = request.headers[.ifNoneMatch],
            tags.split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == etag || $0.trimmingCharacters(in: .whitespaces) == "*"
            })
        {
            guard try await media.storedSize(key) != nil else { throw DomainError.notFound(.media) }
            return Response(status: .notModified, headers: headers)
        }
        // A range applies only to GET (RFC 9110 §14.2) and only while the validator in
        // If-Range still matches.
        let range = request.headers[.range].flatMap { body ? ByteRange(header: $0) : nil }.flatMap { range in
            request.headers[.ifRange].map { $0 == etag } ?? true ? range : nil
        }
        guard let size = try await media.storedSize(key) else { throw DomainError.notFound(.media) }
        var status = HTTPResponse.Status.ok
        var wanted: ClosedRange<Int>?
        if let range {
            guard let resolved = range.resolve(size: size) else {
                throw APIError(
                    .rangeNotSatisfiable, code: "range_not_satisfiable", message: Sentence("The object has \(size) bytes."),
                    headers: [.contentRange: "bytes */\(size)"])
            }
            status = .partialContent
            wanted = resolved
            headers[.contentRange] = "bytes \(resolved.lowerBound)-\(resolved.upperBound)/\(size)"
        }
        guard body else {
            headers[.contentLength] = String(wanted?.count ?? size)
            return Response(status: status, headers: headers)
        }
        guard let read = try await media.read(key, range: wanted) else { throw DomainError.notFound(.media) }
        headers[.contentLength] = String(read.bytes.count)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: read.bytes)))
    }
}

// MARK: Handlers

extension MediaController {
    /// `POST /v1/media`
    @Sendable func uploadMedia(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let use = q.raw("use").flatMap { MediaUse(rawValue: $0) }
        if use == nil { q.validator.fail("use", Sentence("must be profile, cover or chat")) }
        try q.throwIfInvalid()
        // The body's pace counts from the request's arrival; quota and room are checked before it is read.
        let arrived = media.clock.now()
        let ticket = try await media.admit(context.userID, from: context.remoteAddress.map(ClientAddress.networkKey) ?? "unknown")
        defer { ticket.release() }
        let bytes = try await uploadedFile(request, arrivedAt: arrived)
        let upload = try await media.upload(bytes, use: use ?? .profile, by: context.userID)
        return JSONResponse(
            status: .created, MediaRepresentation(media: upload, links: links),
            headers: [.location: "/v1/media/\(upload.id.lowercased)"])
    }

    /// `GET /v1/media/{id}`
    @Sendable func getMedia(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(MediaRepresentation(media: try await media.upload(try context.uuid("id", .media), of: context.userID), links: links))
    }

    /// `GET /media/{key}`
    @Sendable func getMediaFile(_ request: Request, context: AppRequestContext) async throws -> some ResponseGenerator {
        try await serve(request, context: context, body: true)
    }

    /// `HEAD /media/{key}`
    @Sendable func headMediaFile(_ request: Request, context: AppRequestContext) async throws -> some ResponseGenerator {
        try await serve(request, context: context, body: false)
    }
}
