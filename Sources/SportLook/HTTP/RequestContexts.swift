import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The context of every request: the core context, the caller's address, and
/// the caller's identity once a token has been checked.
public struct AppRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    /// The caller's IP address (for throttling), if known: the peer's, or the
    /// client's from `X-Forwarded-For` when the peer is a trusted proxy. The peer's
    /// address is taken when the request starts (the channel forgets it once the
    /// connection closes, which a handler may outlive) and written out as text only
    /// when something reads it (most requests never do).
    public var remoteAddress: String? {
        get {
            if let resolved { return resolved }
            return peer?.ipAddress
        }
        set { resolved = .some(newValue) }
    }
    private let peer: SocketAddress?
    private var resolved: String??
    /// Set by ``TokenAuthenticator`` when the request carries a valid token.
    public var identity: Identity?
    /// The connection (sockets close it when a client stops reading).
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.channel = source.channel
        self.peer = source.channel.remoteAddress
        self.resolved = nil
        self.identity = nil
    }

    /// Bodies over 1 MiB answer 413.
    public var maxUploadSize: Int { 1 << 20 }
}

/// The context behind authentication: a handler here always has a user.
public struct AuthenticatedContext: ChildRequestContext {
    public typealias ParentContext = AppRequestContext
    public var coreContext: CoreRequestContextStorage
    /// The caller.
    public let identity: Identity
    /// The caller's IP address, if known.
    public let remoteAddress: String?

    public init(context: AppRequestContext) throws {
        guard let identity = context.identity else { throw DomainError.unauthorized }
        self.coreContext = context.coreContext
        self.identity = identity
        self.remoteAddress = context.remoteAddress
    }

    public var maxUploadSize: Int { 1 << 20 }

    /// The caller's user id.
    public var userID: UUID { identity.userID }
}
