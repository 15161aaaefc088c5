/// Where clients fetch media from: this server's `/media/KEY`, or the same path under
/// `MEDIA_PUBLIC_URL` (a CDN in front of it).
struct MediaLinks: Sendable {
    /// Scheme and host (and a path prefix if any), without a trailing slash; empty
    /// for paths relative to this server.
    var base: String

    init(base: String = "") {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
    }

    func url(_ key: String) -> String { "\(base)/media/\(key)" }

    /// `"image_url"`: the largest variant's URL, and `"image_urls"`: every variant's by
    /// name (both null without an image).
    func writeImageFields(_ image: MediaRef?, to json: inout JSONWriter) {
        json.field("image_url", image?.variants.first.map { url($0.key) })
        json.key("image_urls")
        guard let image else { return json.null() }
        json.objectStart()
        for variant in image.variants { json.field(variant.name, url(variant.key)) }
        json.objectEnd()
    }
}
