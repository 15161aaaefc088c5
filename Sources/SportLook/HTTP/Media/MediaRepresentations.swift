/// `{id, use, width, height, urls: {variant: url}, variants: [{name, width, height, bytes, url}], created_at}`.
struct MediaRepresentation: JSONEncodable {
    var media: Media
    var links: MediaLinks

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", media.id)
        json.field("use", media.use.rawValue)
        json.field("width", media.width)
        json.field("height", media.height)
        // One expiry for every variant (a chat upload's links are signed).
        let expires = links.signer.expiry()
        json.key("urls")
        json.objectStart()
        for variant in media.variants { json.field(variant.name, links.url(variant.key, expires: expires)) }
        json.objectEnd()
        json.key("variants")
        json.arrayStart()
        for variant in media.variants {
            json.objectStart()
            json.field("name", variant.name)
            json.field("width", variant.width)
            json.field("height", variant.height)
            json.field("bytes", variant.bytes)
            json.field("url", links.url(variant.key, expires: expires))
            json.objectEnd()
        }
        json.arrayEnd()
        json.field("created_at", media.createdAt)
        json.objectEnd()
    }
}
