#if canImport(SwiftUI)
    import SportLookKit
    import SwiftUI

    /// The games near Copenhagen; a tap joins one and opens its chat.
    struct GamesView: View {
        let night: GameNight
        let me: Profile
        @State private var games: [Event] = []
        @State private var joined: Event?
        @State private var failure: String?

        var body: some View {
            List(games) { game in
                Button {
                    Task {
                        do {
                            _ = try await night.join(game)
                            joined = game
                        } catch {
                            failure = (error as? SportLookError)?.message ?? error.localizedDescription
                        }
                    }
                } label: {
                    VStack(alignment: .leading) {
                        Text(game.title).font(.headline)
                        Text("\(game.startsAt.formatted()) · \(game.goingCount) going")
                    }
                }
            }
            .navigationTitle("Nearby games")
            .alert("Could not join", isPresented: .constant(failure != nil)) {
                Button("OK") { failure = nil }
            } message: {
                Text(failure ?? "")
            }
            .navigationDestination(item: $joined) { game in
                ChatView(night: night, game: game, me: me)
            }
            .task { games = (try? await night.nearby(Place(latitude: 55.6761, longitude: 12.5683))) ?? [] }
        }
    }

    /// A game's chat, bound to a `ChatRoomModel` that the socket keeps up to date.
    struct ChatView: View {
        let night: GameNight
        let game: Event
        let me: Profile
        @State private var room: ChatRoomModel?
        @State private var draft = ""

        var body: some View {
            VStack {
                List(room?.messages ?? []) { message in
                    Text("\(message.sender.name): \(message.isDeleted ? "(deleted)" : message.body)")
                        .foregroundStyle(message.sender.id == me.id ? .blue : .primary)
                }
                HStack {
                    TextField("Message", text: $draft)
                    Button("Send") {
                        let text = draft
                        draft = ""
                        Task { try? await room?.send(text) }
                    }
                    .disabled(draft.trimmingCharacters(in: .whitespaces).isEmpty)
                }
                .padding()
            }
            .navigationTitle(game.title)
            .overlay {
                if let reason = room?.endedBecause { Text("The chat ended: \(reason)") }
            }
            .task {
                let session = night.sportlook.chatSession()
                let model = ChatRoomModel(room: game.id.description, session: session)
                room = model
                await session.start()
                // Until the view goes away (the task is cancelled) or the server ends the room.
                await model.follow()
                await session.stop()
            }
        }
    }
#endif
