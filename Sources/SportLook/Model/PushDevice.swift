import Foundation

/// A device registered for pushes: the token its platform's service knows it by.
struct PushDevice: Sendable, Hashable {
    var token: String
    var platform: String
}
