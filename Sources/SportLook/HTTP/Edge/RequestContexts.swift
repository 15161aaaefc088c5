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
    /// client's from `X-Forwarded-For` when the peer is a trusted proxy (see
    /// ``CallerAddress``).
    public var remoteAddress: String? {
        get { address.text }
        set { address.resolved = .some(newValue) }
    }
    fileprivate var address: CallerAddress
    /// Set by ``TokenAuthenticator`` when the request carries a valid token.
    public var identity: Identity?
    /// Why a token the request carries opens nothing, when that is worth saying (a session
    /// a suspension ended): what a route that needs a session answers instead of 401.
    /// Public routes go on anonymous.
    var refusal: DomainError?
    /// The connection (sockets close it when a client stops reading).
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.channel = source.channel
        self.address = CallerAddress(peer: source.channel.remoteAddress)
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
    public var remoteAddress: String? { address.text }
    private let address: CallerAddress

    public init(context: AppRequestContext) throws {
        guard let identity = context.identity else { throw context.refusal ?? DomainError.unauthorized }
        self.coreContext = context.coreContext
        self.identity = identity
        self.address = context.address
    }

    public var maxUploadSize: Int { 1 << 20 }

    /// The caller's user id.
    public var userID: UUID { identity.userID }
}

/// The caller's address as a context holds it: the peer's, taken when the request
/// starts (the channel forgets it once the connection closes, which a handler may
/// outlive) and written out as text only when read (most requests never do: it
/// costs 2,900 instructions), or the one resolved from `X-Forwarded-For`.
private struct CallerAddress: Sendable {
    let peer: SocketAddress?
    var resolved: String?? = nil

    var text: String? {
        if let resolved { return resolved }
        return peer?.ipAddress
    }
}
