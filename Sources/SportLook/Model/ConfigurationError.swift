import Foundation

/// A setting that could not be used, with the reason.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// The environment variable (or flag) at fault.
    public var setting: String
    /// What is wrong with it.
    public var message: String

    /// `"SETTING: message"`.
    public var description: String { "\(setting): \(message)" }
}
