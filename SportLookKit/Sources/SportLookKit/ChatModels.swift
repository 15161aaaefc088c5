import Foundation

#if canImport(Observation)
    import Observation

    /// A room's messages as a view shows them, kept up to date from a ``ChatSession`` on
    /// the main actor: bind a SwiftUI list to ``messages``.
    ///
    /// ```swift
    /// @State var room = ChatRoomModel(room: game.id.description, session: chat)
    /// List(room.messages, id: \.seq) { Text($0.body) }
    ///     .task { await room.follow() }
    /// ```
    @MainActor @Observable
    public final class ChatRoomModel {
        /// Someone typing, and when they last said so.
        public struct Typing: Sendable, Hashable {
            /// Their name.
            public var name: String
            /// When they last said they were typing.
            public var at: Date
        }

        /// The room's id.
        public let room: String
        /// Every message delivered, in `seq` order, each as it is now (edits, reactions,
        /// deletions and poll votes applied).
        public private(set) var messages: [Message] = []
        /// Who is typing, by person id (typing frames come every few seconds while they
        /// type: show those of the last few seconds).
        public private(set) var typing: [String: Typing] = [:]
        /// How far each person read, by person id.
        public private(set) var reads: [String: Int] = [:]
        /// Messages of this session refused for good: their `client_id` and the code.
        public private(set) var refused: [String: String] = [:]
        /// Why the server ended the subscription (`not_attending`, `not_a_member`…), once it has.
        public private(set) var endedBecause: String?

        private let session: ChatSession
        private let start: (seq: Int, change: Int)

        /// - Parameters:
        ///   - room: The room to follow (an event's id for its chat, a group's, a conversation's).
        ///   - session: The app's chat session.
        ///   - afterSeq: The last message the app holds (0: from the start).
        ///   - afterChange: The last change the app holds (0: from the start).
        public init(room: String, session: ChatSession, afterSeq: Int = 0, afterChange: Int = 0) {
            self.room = room.lowercased()
            self.session = session
            start = (afterSeq, afterChange)
        }

        /// Follows the room until the task is cancelled (a view's `.task`) or the server ends it.
        public func follow() async {
            let stream = await session.join(room, afterSeq: start.seq, afterChange: start.change)
            for await event in stream { apply(event) }
        }

        /// Sends a message (now, or when the socket is back); its `client_id`.
        @discardableResult
        public func send(_ text: String) async throws -> String {
            try await session.send(text, to: room)
        }

        /// The room's state after one event of its stream.
        func apply(_ event: ChatEvent, now: Date = Date()) {
            switch event {
            case .message(let message):
                if let last = messages.last, last.seq >= message.seq {
                    replace(message)
                } else {
                    messages.append(message)
                }
            case .edited(let message), .deleted(let message):
                replace(message)
            case .pollVotes(let votes):
                guard let index = index(of: votes.seq), let poll = messages[index].poll else { return }
                messages[index].poll = poll.with(votes)
                messages[index].changeSeq = votes.changeSeq
            case .typing(let user, let name):
                typing[user] = Typing(name: name, at: now)
            case .read(let user, let seq):
                reads[user] = max(reads[user] ?? 0, seq)
            case .refused(let clientID, let code, _):
                refused[clientID] = code
            case .ended(let reason):
                endedBecause = reason
            case .sent:
                break
            }
        }

        private func index(of seq: Int) -> Int? {
            // Messages are in seq order: a binary search.
            var low = 0
            var high = messages.count
            while low < high {
                let mid = (low + high) / 2
                if messages[mid].seq < seq { low = mid + 1 } else { high = mid }
            }
            return low < messages.count && messages[low].seq == seq ? low : nil
        }

        private func replace(_ message: Message) {
            if let index = index(of: message.seq) { messages[index] = message }
        }
    }

    /// The chats list as a view shows it: the entries of `GET /v1/me/rooms`, kept live from
    /// a ``ChatSession``'s `watch_rooms`, newest activity first.
    @MainActor @Observable
    public final class ChatsListModel {
        /// The entries, newest activity first.
        public private(set) var rooms: [ChatRoom] = []

        private let session: ChatSession
        private let load: @Sendable () async throws -> [ChatRoom]

        /// - Parameters:
        ///   - client: Reads the list whole (`GET /v1/me/rooms`) when watching begins and
        ///     whenever the socket comes back (changes while offline are not told).
        ///   - session: The app's chat session, whose socket tells the changes.
        public init(client: SportLookClient, session: ChatSession) {
            self.session = session
            load = {
                try await client.chat.rooms().all()
            }
        }

        init(session: ChatSession, load: @escaping @Sendable () async throws -> [ChatRoom]) {
            self.session = session
            self.load = load
        }

        /// Keeps the list live until the task is cancelled.
        public func follow() async {
            let changes = await session.watchRooms()
            let states = await session.states()
            // Read whole at every return online (the changes while offline were not told).
            let reloads = Task { @MainActor [weak self] in
                for await state in states where state == .online { try? await self?.reload() }
            }
            defer { reloads.cancel() }
            for await change in changes { apply(change) }
        }

        /// Reads the list whole.
        public func reload() async throws {
            let all = try await load()
            rooms = all
            sort()
        }

        func apply(_ change: RoomListEvent) {
            switch change {
            case .updated(let entry):
                rooms.removeAll { $0.id == entry.id }
                rooms.append(entry)
                sort()
            case .removed(let id):
                rooms.removeAll { $0.id == id }
            }
        }

        private func sort() {
            rooms.sort { ($0.lastActivityAt, $0.id) > ($1.lastActivityAt, $1.id) }
        }
    }
#endif
