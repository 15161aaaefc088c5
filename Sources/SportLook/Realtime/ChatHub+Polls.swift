import Foundation
import Synchronization

/// A poll's change frames: a vote reaches every socket of its room, so its frame is
/// encoded once for the sockets with no blocks, each viewer's own choices put in.
extension ChatHub {
    struct PollFrame: Sendable {
        let head: String
        let tail: String
        let mine: [UUID: [Int]]
    }

    /// The change frame of a poll for `viewer`, who blocked nobody: encoded once for all
    /// such sockets, with the viewer's own choices put in (``Blocks/view(_:hiding:viewer:)``
    /// gives the same). `nil` when the poll is not there for the viewer (its author blocked them).
    func pollChangeFrame(_ message: ChatMessage, for viewer: UUID) -> String? {
        guard let poll = message.poll else { return Frames.change(message, links: links) }
        if poll.hiddenFrom.contains(viewer) { return nil }
        let key = FrameKey(room: message.roomID, seq: message.seq, change: message.changeSeq, afterChange: -1, sender: message.sender.name)
        let frame: PollFrame
        if let kept = pollFrames.withLock({ $0[key] }) {
            frame = kept
        } else {
            var general = message
            general.poll?.mine = []
            let text = Frames.change(general, links: links)
            // Strings are escaped in JSON: the field's own text, quotes unescaped, is the field.
            guard let at = text.range(of: "\"my_votes\":[]", options: .backwards) else {
                return Blocks.view(message, hiding: [], viewer: viewer).map { Frames.change($0, links: links) }
            }
            var mine: [UUID: [Int]] = [:]
            for (position, option) in poll.options.enumerated() { for voter in option.voters { mine[voter, default: []].append(position) } }
            frame = PollFrame(head: text[..<at.lowerBound] + "\"my_votes\":[", tail: "]" + text[at.upperBound...], mine: mine)
            pollFrames.withLock { kept in
                if kept.count >= Self.framesKept / 16 { kept.removeAll(keepingCapacity: true) }
                kept[key] = frame
            }
        }
        return frame.head + (frame.mine[viewer]?.map(String.init).joined(separator: ",") ?? "") + frame.tail
    }
}
