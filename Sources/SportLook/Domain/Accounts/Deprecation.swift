import Foundation

/// An old shape of a route that keeps working for a stated time after a change that
/// would otherwise have broken the apps in the field: from `since` it is deprecated,
/// from `sunset` it is refused. Answers in the old shape say so (RFC 9745's
/// `Deprecation`, RFC 8594's `Sunset`), with what replaces it.
struct Deprecation: Sendable, Equatable {
    /// When the old shape was deprecated.
    let since: Date
    /// When it stops working.
    let sunset: Date
    /// What a client does instead, in a sentence.
    let replacement: String

    /// A password reset finished without the `reset_id` its start answered (the shape of
    /// the route before the fix that binds a code to its request).
    static let resetWithoutRequest = Deprecation(
        since: Date(timeIntervalSince1970: 1_795_996_800),  // 2026-11-30T00:00:00Z
        sunset: Date(timeIntervalSince1970: 1_811_808_000),  // 2027-06-01T00:00:00Z
        replacement: "Send the reset_id that POST /v1/auth/password/reset/start answered.")

    /// Whether the old shape still works at `now`.
    func works(at now: Date) -> Bool { now < sunset }
}
