import HTTPTypes
import Hummingbird

/// Every answer, errors included, says its `Content-Type` is to be believed
/// (`X-Content-Type-Options: nosniff`): a JSON body is never run as a script or
/// shown as a page, whatever text a user put in it. (A step of ``EdgeMiddleware``.)
enum NoSniff {
    static let header = HTTPField.Name("X-Content-Type-Options")!

    static func apply(to response: inout Response) {
        if response.headers[header] == nil { response.headers[header] = "nosniff" }
    }
}
