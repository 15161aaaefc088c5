import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// `GET /v1/ws`: the realtime socket.
///
/// The upgrade is refused (and the request answered over HTTP: 401, 403 or
/// 426) without a valid session — a token in the `Authorization` header (apps), the
/// web client's session cookie (from a page of this server), or the `access_token`
/// query parameter (never logged) — or from an origin that is not allowed.
struct WebSocketEndpoint {
    let tokens: TokenAuthenticator
    let hub: ChatHub
    let chat: ChatService
    let feed: ChangeFeed
    let origins: OriginPolicy
    let limits: SocketLimits
    let stallTimeout: Duration
    /// How often each socket is pinged (at its own phase, see ``PingSchedule``).
    let pingInterval: Duration
    let clock: any AppClock

    /// Who is calling, from the header, the cookie or the query; `nil` without a valid token.
    func identity(_ request: Request) async throws -> Identity? {
        let token: String?
        if let credential = SessionCookie.credential(of: request) {
            // The cookie opens a socket only for a page of this server (a browser always says which).
            token = credential.fromCookie && !origins.allowsCookieWrite(request) ? nil : credential.token
        } else {
            token = QueryParameters(request.uri.query).get("access_token")
        }
        guard let token else { return nil }
        return try await tokens.identity(for: token)
    }

    /// The upgrade route (on the WebSocket router).
    func addUpgradeRoute(to router: Router<AppRequestContext>) {
        router.ws("v1/ws") { request, context in
            guard origins.allowsSocket(request), try await identity(request) != nil else { return .dontUpgrade }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            // The server's pings are ours (the framework's are off): each socket at its own
            // phase. The reads counted on its connection say whether the client answers.
            let reads = ReadCounter()
            let channel = context.requestContext.channel
            do {
                try await channel.eventLoop.submit { try channel.pipeline.syncOperations.addHandler(reads.handler(), position: .first) }
                    .get()
            } catch {
                // The connection is already gone.
                context.logger.debug("socket closed before it was set up", metadata: ["error": "\(error)"])
                return
            }
            guard let identity = (try? await identity(context.request)) ?? nil else {
                // The session ended (or a suspension ended it) between the upgrade and now.
                try? await outbound.close(
                    .init(codeNumber: FrameQueue.Ending.sessionEnded.code), reason: FrameQueue.Ending.sessionEnded.reason)
                return
            }
            let name: String
            do {
                name = try await hub.openingNames.call(identity.userID, ()) ?? ""
            } catch {
                context.logger.warning("socket refused: the database did not answer", metadata: ["error": "\(error)"])
                try? await outbound.close(.unexpectedServerError, reason: "unavailable")
                return
            }
            let connection = ChatConnection(
                identity: identity, userName: name, language: Language.asked(by: context.request), hub: hub, chat: chat, feed: feed,
                limits: limits, logger: context.logger)
            // Its frames are written on its event loop, by a handler of the channel's own.
            do {
                try await channel.eventLoop.submit { try SocketWriter.install(for: connection.queue, in: channel) }.get()
            } catch {
                context.logger.debug("socket closed before its writer was set up", metadata: ["error": "\(error)"])
                return
            }
            hub.register(connection)
            // A session that ended between the token check and the registration was
            // announced to nobody here: look once more, now that it is registered.
            do {
                if try await hub.endedSessions.call(identity.tokenID, ()) == true {
                    connection.end(.sessionEnded)
                }
            } catch {
                context.logger.warning("could not recheck a new socket's session", metadata: ["error": "\(error)"])
            }
            // The socket's close runs on its event loop, after the frames the writer wrote there.
            let onLoop = LoopExecutors.shared.executor(for: channel.eventLoop)
            let pings = Mutex(PingSchedule(interval: pingInterval, opened: .now, phase: Double.random(in: 0..<1)))
            /// Sends a close frame, then cuts the connection a second later whether or
            /// not the client answers (a client that stopped reading never takes it).
            @Sendable func close(_ code: WebSocketErrorCode, reason: String) async {
                let closing = Task(executorPreference: onLoop) { try? await outbound.close(code, reason: reason) }
                try? await Task.sleep(for: .seconds(1))
                closing.cancel()
                channel.close(mode: .all, promise: nil)
            }
            // Closed with a reason (session ended, too many frames): once the frames before
            // it are written, say it.
            let ender = Task {
                await connection.queue.finished()
                if let ending = connection.queue.ending {
                    if ending == .tooManyFrames { limits.refusals?.record("socket_rate_limited") }
                    await close(.init(codeNumber: ending.code), reason: ending.reason)
                }
            }
            // A client that stops reading is closed with a reason; it reconnects with after_seq and loses nothing.
            // Its socket is full, so the close frame may not get out: the connection is cut a second later anyway.
            // The instance's one timer looks (no sleeping task per socket).
            let watched = hub.sockets.watch { now in
                if clock.now() >= identity.expiresAt {
                    connection.end(.sessionEnded)
                }
                // However it is being closed, a client that does not take its last
                // frames (a writer stuck on a full socket) is cut two seconds later
                // (at the first look after).
                if let endedAt = connection.queue.endedAt {
                    guard now - endedAt > .seconds(2) else { return .again }
                    channel.close(mode: .all, promise: nil)
                    return .done
                }
                let (read, waiting) = reads.now
                switch pings.withLock({ $0.look(now: now, reads: read, waiting: waiting) }) {
                case .wait: break
                case .ping:
                    // Not once the socket is closing (a close frame may be on its way).
                    if !connection.queue.isClosed {
                        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer()), promise: nil)
                    }
                case .gone:
                    connection.queue.close()
                    context.logger.info("closing a socket whose client stopped answering pings", metadata: ["user": "\(connection.userID)"])
                    Task { await close(.goingAway, reason: "ping_timeout") }
                    return .done
                }
                guard connection.queue.stalledFor(at: now) > stallTimeout else { return .again }
                connection.queue.close()
                context.logger.info("closing a socket that stopped reading", metadata: ["user": "\(connection.userID)"])
                Task { await close(.policyViolation, reason: "too_slow: reconnect with after_seq") }
                return .done
            }
            do {
                for try await message in inbound.messages(maxSize: 16_384) {
                    if case .text(let text) = message { await connection.handle(text) }
                }
            } catch {
                context.logger.debug("socket closed", metadata: ["error": "\(error)"])
            }
            hub.sockets.forget(watched)
            ender.cancel()
            await connection.closed()
            hub.unregister(connection)
        }
    }

    /// The plain HTTP answer to `GET /v1/ws` when no upgrade happened.
    func addFallbackRoute(to routes: RouteRegistrar<AppRequestContext>) {
        routes.get("/v1/ws", use: notUpgraded)
    }

    /// `GET /v1/ws` without an upgrade: 426, once the origin and the token are checked.
    @Sendable func notUpgraded(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard origins.allowsSocket(request) else { throw DomainError.forbidden(Sentence("This origin may not open sockets.")) }
        guard try await identity(request) != nil else { throw DomainError.unauthorized }
        throw APIError(
            .upgradeRequired, code: "upgrade_required", message: Sentence("Open this URL as a WebSocket."), headers: [.upgrade: "websocket"]
        )
    }
}
