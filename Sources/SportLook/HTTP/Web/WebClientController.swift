import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web client (`Public/`), read once at start-up and served from memory:
/// `GET /` is `index.html` (revalidated every time, with an `ETag`), and every other
/// file is under `/app/<build>/…`, where `<build>` is a digest of all of them, so
/// those are cached for a year and a new version has new URLs. Every answer carries
/// a strict Content Security Policy: scripts, styles and connections only from this
/// server, images also from the map tiles' and the media's origins.
struct WebClientController: Sendable {
    struct Asset: Sendable {
        var body: ByteBuffer
        var contentType: String
        var etag: String
    }

    /// The index, with the build, the tile template and the attribution filled in.
    let index: Asset
    /// The moderation console's page (`admin.html`), with the build filled in.
    let console: Asset
    /// Files under `app/`, by their path there (`app.js`, `views/event.js`…).
    let assets: [String: Asset]
    let build: String
    let policy: String

    /// Settings the client needs.
    struct Settings: Sendable {
        /// `{z}/{x}/{y}` template of raster tiles; empty: no tiles (a plain grid).
        var tileURL: String
        var tileAttribution: String
        /// Where media URLs point when not at this server (`MEDIA_PUBLIC_URL`).
        var mediaOrigin: String?
        /// Sign-in providers offered on the web.
        var providers: [Provider] = []
    }

    /// A provider the page offers: its name, the web client id, the authorization endpoint.
    struct Provider: Sendable, Equatable {
        var provider: String
        var clientID: String
        var authorizeURL: String
    }

    /// Reads `folder` (`index.html` and `app/`, one level of subfolders).
    init(folder: URL, settings: Settings) throws {
        let app = folder.appendingPathComponent("app")
        var files: [String: Data] = [:]
        for entry in try FileManager.default.contentsOfDirectory(atPath: app.path).sorted() {
            let url = app.appendingPathComponent(entry)
            if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                for inner in try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() where Self.contentType(of: inner) != nil
                {
                    files["\(entry)/\(inner)"] = try Data(contentsOf: url.appendingPathComponent(inner))
                }
            } else if Self.contentType(of: entry) != nil {
                files[entry] = try Data(contentsOf: url)
            }
        }
        var digest = SHA256()
        for (path, data) in files.sorted(by: { $0.key < $1.key }) {
            digest.update(data: Array(path.utf8) + [0])
            digest.update(data: data)
        }
        build = String(digest.finalize().hexString.prefix(16))
        assets = files.reduce(into: [:]) { assets, file in
            assets[file.key] = Asset(
                body: ByteBuffer(bytes: file.value), contentType: Self.contentType(of: file.key)!, etag: "\"\(Self.tag(file.value))\"")
        }
        let template = try String(contentsOf: folder.appendingPathComponent("index.html"), encoding: .utf8)
        let page =
            template
            .replacingOccurrences(of: "{{build}}", with: build)
            .replacingOccurrences(of: "{{tiles}}", with: Self.escape(settings.tileURL))
            .replacingOccurrences(of: "{{attribution}}", with: Self.escape(settings.tileAttribution))
            .replacingOccurrences(of: "{{providers}}", with: Self.escape(Self.json(settings.providers)))
        index = Asset(body: ByteBuffer(string: page), contentType: "text/html; charset=utf-8", etag: "\"\(Self.tag(Data(page.utf8)))\"")
        let consolePage = try String(contentsOf: folder.appendingPathComponent("admin.html"), encoding: .utf8)
            .replacingOccurrences(of: "{{build}}", with: build)
        console = Asset(
            body: ByteBuffer(string: consolePage), contentType: "text/html; charset=utf-8",
            etag: "\"\(Self.tag(Data(consolePage.utf8)))\"")
        let images = ["'self'"] + [Self.origin(of: settings.tileURL), settings.mediaOrigin].compactMap { $0 }
        policy = [
            "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src \(images.joined(separator: " "))",
            "connect-src 'self'", "manifest-src 'self'", "worker-src 'self'", "base-uri 'none'", "form-action 'self'",
            "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    func addRoutes(to routes: RouteRegistrar<AppRequestContext>) {
        for method in [HTTPRequest.Method.get, .head] {
            routes.on(method, "/", use: page)
            routes.on(method, "/sw.js", use: serviceWorker)
            routes.on(method, "/app/:build/:part", use: appFile)
            routes.on(method, "/app/:build/:part/:file", use: appFileInFolder)
        }
    }

    /// `GET`/`HEAD /admin`: the moderation console, for staff alone: to anyone else (a
    /// session without a role, or none) it is a path no route serves. Never cached: a
    /// role taken away closes it at the next visit.
    func addConsoleRoutes(to routes: RouteRegistrar<AppRequestContext>, staff: StaffService) {
        for method in [HTTPRequest.Method.get, .head] {
            routes.on(method, "/admin") { request, context in
                guard let identity = context.identity, try await staff.role(of: identity.userID) != nil else { throw HiddenRoute() }
                return respond(console, to: request, cache: "no-store", body: request.method != .head)
            }
        }
    }

    /// `GET`/`HEAD /`: the page.
    @Sendable func page(_ request: Request, context: AppRequestContext) throws -> Response {
        respond(index, to: request, cache: "no-cache", body: request.method != .head)
    }

    /// `GET`/`HEAD /sw.js`: the service worker, at the root so that its scope is the
    /// whole app; checked for a new version at each visit.
    @Sendable func serviceWorker(_ request: Request, context: AppRequestContext) throws -> Response {
        guard let worker = assets["sw.js"] else { throw DomainError.notFound(.file) }
        return respond(worker, to: request, cache: "no-cache", body: request.method != .head)
    }

    /// `GET`/`HEAD /app/{build}/{part}`: a file of this build.
    @Sendable func appFile(_ request: Request, context: AppRequestContext) throws -> Response {
        try asset(context, path: context.parameters.require("part"), request: request, body: request.method != .head)
    }

    /// `GET`/`HEAD /app/{build}/{part}/{file}`: a file of this build in a folder.
    @Sendable func appFileInFolder(_ request: Request, context: AppRequestContext) throws -> Response {
        try asset(
            context, path: "\(try context.parameters.require("part"))/\(try context.parameters.require("file"))", request: request,
            body: request.method != .head)
    }

    private func asset(_ context: AppRequestContext, path: String, request: Request, body: Bool) throws -> Response {
        // Another build's file is not served as this one's: its URL would cache the wrong bytes for a year.
        guard try context.parameters.require("build") == build, let asset = assets[path] else { throw DomainError.notFound(.file) }
        return respond(asset, to: request, cache: "public, max-age=31536000, immutable", body: body)
    }

    private func respond(_ asset: Asset, to request: Request, cache: String, body: Bool) -> Response {
        let headers: HTTPFields = [
            .contentType: asset.contentType,
            .eTag: asset.etag,
            .cacheControl: cache,
            .contentSecurityPolicy: policy,
            .init("X-Content-Type-Options")!: "nosniff",
            .init("Referrer-Policy")!: "strict-origin-when-cross-origin",
            .init("Permissions-Policy")!: "geolocation=(self), camera=(), microphone=()",
        ]
        if let tags = request.headers[.ifNoneMatch],
            tags.split(separator: ",").contains(where: { ["*", asset.etag].contains($0.trimmingCharacters(in: .whitespaces)) })
        {
            return Response(status: .notModified, headers: headers)
        }
        var sized = headers
        sized[.contentLength] = String(asset.body.readableBytes)
        return Response(status: .ok, headers: sized, body: body ? .init(byteBuffer: asset.body) : .init())
    }

    static func contentType(of name: String) -> String? {
        switch name.split(separator: ".").last {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "json": "application/json"
        case "webmanifest": "application/manifest+json"
        default: nil
        }
    }

    private static func tag(_ data: Data) -> String { String(SHA256.hash(data: data).hexString.prefix(32)) }

    /// `scheme://host[:port]` of a URL template; nil when there is none.
    static func origin(of template: String) -> String? {
        guard let url = URL(string: template.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")),
            let scheme = url.scheme, let host = url.host
        else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// `[{"provider", "client_id", "authorize_url"}]`.
    static func json(_ providers: [Provider]) -> String {
        var json = JSONWriter()
        json.arrayStart()
        for p in providers {
            json.objectStart()
            json.field("provider", p.provider)
            json.field("client_id", p.clientID)
            json.field("authorize_url", p.authorizeURL)
            json.objectEnd()
        }
        json.arrayEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// Text for an HTML attribute.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
