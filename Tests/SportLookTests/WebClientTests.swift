import Foundation
import HTTPTypes
import SportLookAPI
import Testing

@testable import SportLook

/// The web client as the server serves it (what it does in a browser is
/// `scripts/web-test`, with Playwright and Chromium).
@Suite("The web client's files")
struct WebClientTests {
    @Test(
        "/ is the page with a strict policy and revalidated; assets are under the build's path, cached for a year; nothing else is served")
    func serving() async throws {
        try await withApp(
            .sqlite,
            configure: {
                $0.tileURL = "https://tiles.example.com/{z}/{x}/{y}.png"
                $0.tileAttribution = "Tiles <by> \"Example\""
                $0.webSignIn = [
                    WebSignIn(
                        provider: .google, clientID: "web.apps.googleusercontent.com",
                        authorizeURL: URL(string: "https://accounts.google.com/o/oauth2/v2/auth")!)
                ]
            }
        ) { api, _ in
            let page = try await api.get("/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.cacheControl] == "no-cache")
            let policy = try #require(page.headers[.contentSecurityPolicy])
            for directive in [
                "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'",
                "img-src 'self' https://tiles.example.com;",
            ] {
                #expect(policy.contains(directive), "\(policy)")
            }
            #expect(!policy.contains("unsafe"))
            #expect(page.text.contains(#"<meta name="sportlook-tiles" content="https://tiles.example.com/{z}/{x}/{y}.png">"#))
            #expect(page.text.contains(#"content="Tiles &lt;by&gt; &quot;Example&quot;""#), "attribute text is escaped")
            #expect(
                page.text.contains(
                    #"<meta name="sportlook-providers" content="[{&quot;provider&quot;:&quot;google&quot;,&quot;client_id&quot;:&quot;web.apps.googleusercontent.com&quot;,&quot;authorize_url&quot;:&quot;https://accounts.google.com/o/oauth2/v2/auth&quot;}]">"#
                ), "\(page.text)")
            let build = try #require(page.text.firstMatch(of: /\/app\/([0-9a-f]{16})\/app\.js/)?.1)
            let etag = try #require(page.headers[.eTag])
            #expect(try await api.request(.get, "/", headers: [.ifNoneMatch: etag]).status == .notModified)
            let head = try await api.request(.head, "/")
            #expect(head.status == .ok && head.body.isEmpty)

            let script = try await api.get("/app/\(build)/app.js")
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(script.headers[.init("X-Content-Type-Options")!] == "nosniff")
            #expect(try await api.get("/app/\(build)/views/event.js").status == .ok)
            #expect(try await api.get("/app/\(build)/style.css").headers[.contentType] == "text/css; charset=utf-8")
            for missing in [
                "/app/0123456789abcdef/app.js", "/app/\(build)/nothing.js", "/app/\(build)/../index.html",
                "/app/\(build)/%2e%2e/%2e%2e/Package.swift", "/index.html",
            ] {
                #expect(try await api.get(missing).status == .notFound, "\(missing)")
            }
        }
        try await withApp(.sqlite, configure: { $0.webClient = false }) { api, _ in
            let page = try await api.get("/")
            #expect(page.status == .notFound)
            // API answers, errors included, are never sniffed into something else.
            #expect(page.headers[.init("X-Content-Type-Options")!] == "nosniff")
            #expect(try await api.get("/v1/sports").headers[.init("X-Content-Type-Options")!] == "nosniff")
        }
    }

    @Test(
        "the client's first load (its JavaScript and CSS) stays under 150 KB, each part fetched later under 20 KB and never imported up front, the console's own scripts under 40 KB, and no script writes HTML from text"
    )
    func budget() throws {
        let folder = try Resources.locate().webClient.appendingPathComponent("app")
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".js") || $0.hasSuffix(".css") }
        #expect(files.contains("app.js") && files.contains("style.css") && files.contains("console/console.js"))
        #expect(files.contains("later/money.js") && files.contains("later/teams.js"))
        var total = 0
        var console = 0
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            // The console (/admin) is a page of its own: the client never loads its scripts.
            // A part under later/ is fetched by `later()` when a screen first shows it.
            if file.hasPrefix("console/") {
                console += data.count
            } else if file.hasPrefix("later/") {
                #expect(data.count < 20_000, "\(file): \(data.count) bytes")
            } else {
                total += data.count
            }
            if file.hasSuffix(".js") {
                let text = String(decoding: data, as: UTF8.self)
                #expect(!text.contains("/later/") || file == "dom.js", "\(file) imports a later part up front")
                for sink in [
                    "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "srcdoc", "DOMParser",
                    "createContextualFragment", "javascript:",
                ] {
                    #expect(!text.contains(sink), "\(file) uses \(sink)")
                }
            }
        }
        #expect(total < 150_000, "\(total) bytes")
        #expect(console < 40_000, "\(console) bytes")
    }
}
