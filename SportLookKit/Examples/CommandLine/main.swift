import Foundation
import SportLookKit

// sportlook-sample: a game night from the command line, on Linux or macOS.
//
//   sportlook-sample --server http://127.0.0.1:8080 --email ada@example.com --password "correct horse battery" \
//       [--name Ada] [--organise "Sunday football"] [--say "Who brings the ball?"] [--wait-for "I do"]
//
// Signs in (with --name, signs up first when needed), lists the games near Copenhagen,
// joins the nearest (or, with --organise, makes one), says something in its chat and
// prints what the others say, until someone says the --wait-for text (then it ends).

let options = Options(CommandLine.arguments.dropFirst())
guard let server = options["server"].flatMap(URL.init(string:)), let email = options["email"], let password = options["password"] else {
    say(
        "usage: sportlook-sample --server URL --email EMAIL --password PASSWORD [--name NAME] [--organise TITLE] [--say TEXT] [--wait-for TEXT]"
    )
    exit(2)
}
let place = Place(latitude: Double(options["lat"] ?? "") ?? 55.6761, longitude: Double(options["lon"] ?? "") ?? 12.5683)
let night = GameNight(server: server)

do {
    let me = try await night.signIn(email: email, password: password, name: options["name"])
    say("signed in as \(me.name)")
    var games = try await night.nearby(place)
    for game in games { say("nearby: \(game.title), \(game.startsAt.formatted()), \(game.goingCount) going") }
    if let title = options["organise"] {
        games.insert(try await night.organise(title, at: place), at: 0)
        say("organised: \(title)")
    }
    guard let game = games.first else {
        say("no game nearby")
        exit(1)
    }
    say("joined \(game.title): \(try await night.join(game).rawValue)")
    let (chat, events) = await night.chat(in: game)
    // What was said goes out when the socket is up; it counts once the server stored it.
    var said: String?
    if let text = options["say"] { said = try await chat.send(text, to: game.id.description) }
    var stored = said == nil
    let awaited = options["wait-for"]
    var heard = awaited == nil
    let timeout = Task {
        try await Task.sleep(for: .seconds(Double(options["timeout"] ?? "") ?? 120))
        say("timed out: \(heard ? "" : "no one said \(awaited ?? "") ")\(stored ? "" : "what I said was not stored")")
        exit(1)
    }
    for await event in events {
        switch event {
        case .message(let message):
            say("\(message.sender.name): \(message.body)")
            if message.sender.id != me.id, message.body == awaited { heard = true }
        case .sent(let clientID, _) where clientID == said:
            stored = true
        default:
            break
        }
        if heard && stored { break }
    }
    timeout.cancel()
    await chat.stop()
    guard heard && stored else {
        say("the chat ended first")
        exit(1)
    }
} catch {
    say("failed: \(error)")
    exit(1)
}

/// Writes a line at once, also into a pipe or a file (another program may be waiting for it).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// `--name value` pairs.
struct Options {
    private var values: [String: String] = [:]

    init(_ arguments: ArraySlice<String>) {
        var name: String?
        for argument in arguments {
            if argument.hasPrefix("--") {
                name = String(argument.dropFirst(2))
            } else if let key = name {
                values[key] = argument
                name = nil
            }
        }
    }

    subscript(_ name: String) -> String? { values[name] }
}
