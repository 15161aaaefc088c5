#if canImport(SwiftUI)
    import SportLookKit
    import SwiftUI

    /// The games near Copenhagen; a tap joins one and opens its chat.
    struct GamesView: View {
        let night: GameNight
        let me: Profile
        @State private var games: [Event] = []
        @State private var joined: Event?

        var body: some View {
            List(games) { game in
                Button {
                    Task {
                        _ = try? await night.join(game)
                        joined = game
                    }
                } label: {
                    VStack(alignment: .leading) {
                        Text(game.title).font(.headline)
                        Text("\(game.startsAt.formatted()) · \(game.goingCount) going")
                    }
                }
            }
            .navigationTitle("Nearby games")
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
            .task {
                let session = night.sportlook.chatSession()
                let model = ChatRoomModel(room: game.id.description, session: session)
                room = model
                await session.start()
                await model.follow()
            }
        }
    }
#endif
