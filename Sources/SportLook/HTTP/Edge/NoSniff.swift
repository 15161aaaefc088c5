import HTTPTypes
import Hummingbird

/// Every answer, errors included, says its `Content-Type` is to be believed
/// (`X-Content-Type-Options: nosniff`): a JSON body is never run as a script or
/// shown as a page, whatever text a user put in it. (A step of ``EdgeMiddleware``.)
enum NoSniff {
    static let header = HTTPField.Name("X-Content-Type-Options")!
    /// Made once: a field's value is checked when it is made.
    private static let field = HTTPField(name: header, value: "nosniff")

    static func apply(to response: inout Response) {
        if !response.headers.contains(header) { response.headers.append(field) }
    }
}
