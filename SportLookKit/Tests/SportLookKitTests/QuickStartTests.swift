import Foundation
import SportLookKit
import SportLookTestSupport
import Testing

/// The README's quick start, as written, against a real server: the lines between the
/// markers below are the README's block but its first line (the server's address).
@Suite("The README's quick start")
struct QuickStartTests {
    static func quickStart(_ server: URL) async throws -> (game: Event, nearby: [Event], sent: String) {
        // quick start begins
        let sportlook = SportLookClient(server: server)
        try await sportlook.auth.register(name: "Ada", email: "ada@example.com", password: "correct horse battery")
        let copenhagen = Place(latitude: 55.6761, longitude: 12.5683)
        let game = try await sportlook.events.create(
            .init(title: "Sunday football", sport: "football", startsAt: .now + 86_400, place: copenhagen, capacity: 10))
        var nearby: [Event] = []
        for try await page in sportlook.events.nearby(around: copenhagen, within: 5) { nearby += page }
        let chat = sportlook.chatSession()
        let messages = await chat.join(game.id.description)
        await chat.start()
        let sent = try await chat.send("Who brings the ball?", to: game.id.description)
        // quick start ends
        for await event in messages {
            if case .sent(let clientID, _) = event, clientID == sent { break }
        }
        await chat.stop()
        return (game, nearby, sent)
    }

    @Test("the quick start runs against a real server: a game made, found nearby, and a message in its chat")
    func runs() async throws {
        try await withServer { server in
            let (game, nearby, _) = try await Self.quickStart(server.url)
            #expect(nearby.map(\.id).contains(game.id))
            #expect(game.iOrganise && game.myAttendance == .going && game.capacity == 10)
            let ben = try await signedUp(server, "Ben")
            let seen = try await ben.events.get(game.id)
            #expect(seen.title == "Sunday football", "\(seen)")
            // The organiser holds no place of the ten.
            #expect(seen.goingCount == 0 && seen.spotsLeft == 10 && seen.myAttendance == nil, "\(seen)")
            await #expect(throws: SportLookError.self, "the chat is for the people going") {
                try await ben.chat.history(of: game.id.description).all()
            }
        }
    }

    @Test("README.md's quick start is the code above, line for line")
    func readmeMatches() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let block = try #require(
            readme.components(separatedBy: "## Quick start").dropFirst().first?.components(separatedBy: "```swift\n").dropFirst().first?
                .components(separatedBy: "```").first)
        let tested = try #require(
            source.components(separatedBy: "// quick start begins\n").dropFirst().first?.components(
                separatedBy: "        // quick start ends"
            ).first)
        let readmeLines = block.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty && !$0.hasPrefix("import ")
        }
        let testedLines = tested.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(readmeLines.first?.hasPrefix("let server = URL(string:") == true, "the quick start names its server first")
        #expect(Array(readmeLines.dropFirst()) == testedLines)
    }
}
