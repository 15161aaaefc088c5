import Foundation
import Hummingbird

extension Language {
    /// The language a request's `Accept-Language` asks for, among those texts come in;
    /// nil when it names none of them (or is not there).
    static func accepted(by request: Request) -> Language? {
        request.headers[.acceptLanguage].flatMap { preferred(in: String($0.prefix(500))) }
    }

    /// The language a request's answers are written in: the one it accepts, else English.
    static func asked(by request: Request) -> Language { accepted(by: request) ?? .en }
}
