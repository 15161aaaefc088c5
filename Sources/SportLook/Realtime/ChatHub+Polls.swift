import Foundation
import Synchronization

/// A poll's change frames: a vote reaches every socket of its room, so its frames are
/// encoded once for the sockets with no blocks, each viewer's own choices put in.
extension ChatHub {
    /// A poll message after one change, as every socket hiding no one gets it: the
    /// whole message (`message_edited`) and its votes alone (`poll_votes`), each cut
    /// where the viewer's own choices go.
    struct PollFrame: Sendable {
        let whole: Spliced
        let votes: Spliced
        let mine: [UUID: [Int]]
        /// The message but its votes (``pollShape(_:)``): a socket sent this shape of the
        /// message before is sent `votes`, else `whole`.
        let shape: ChatMessage

        func whole(for viewer: UUID) -> String { whole.with(mine[viewer]) }
        func votes(for viewer: UUID) -> String { votes.with(mine[viewer]) }
    }

    /// A frame cut at its `"my_votes":[` … `]`.
    struct Spliced: Sendable {
        let head: String
        let tail: String

        /// Cuts `text` at its last `"my_votes":[]` (strings are escaped in JSON: the
        /// field's own text, quotes unescaped, is the field).
        init?(_ text: String) {
            guard let at = text.range(of: "\"my_votes\":[]", options: .backwards) else { return nil }
            head = text[..<at.lowerBound] + "\"my_votes\":["
            tail = "]" + text[at.upperBound...]
        }

        func with(_ positions: [Int]?) -> String { head + (positions?.map(String.init).joined(separator: ",") ?? "") + tail }
    }

    /// What a message is but its votes: two changes of a poll with the same shape differ
    /// only in who chose what.
    static func pollShape(_ message: ChatMessage) -> ChatMessage {
        var shape = message
        shape.changeSeq = 0
        guard var poll = message.poll else { return shape }
        for i in poll.options.indices { poll.options[i].voters = [] }
        poll.mine = []
        poll.hiddenFrom = []
        poll.seen = nil
        shape.poll = poll
        return shape
    }

    /// The frames of a poll message after a change, for the sockets that block nobody
    /// (``Blocks/view(_:hiding:viewer:)`` gives the same views): encoded once for all.
    func pollFrame(_ message: ChatMessage) -> PollFrame? {
        // (A poll read for one viewer, ``ChatPoll/seen``, names only the first voters: never a frame for all.)
        guard let poll = message.poll, poll.seen == nil else { return nil }
        let key = FrameKey(room: message.roomID, seq: message.seq, change: message.changeSeq, afterChange: -1, sender: message.sender.name)
        if let kept = pollFrames.withLock({ $0[key] }) { return kept }
        var general = message
        general.poll?.mine = []
        guard let whole = Spliced(Frames.change(general, links: links)), let votes = Spliced(Frames.pollVotes(general)) else { return nil }
        var mine: [UUID: [Int]] = [:]
        for (position, option) in poll.options.enumerated() { for voter in option.voters { mine[voter, default: []].append(position) } }
        let frame = PollFrame(whole: whole, votes: votes, mine: mine, shape: Self.pollShape(message))
        pollFrames.withLock { kept in
            if kept.count >= Self.framesKept / 16 { kept.removeAll(keepingCapacity: true) }
            kept[key] = frame
        }
        return frame
    }
}
