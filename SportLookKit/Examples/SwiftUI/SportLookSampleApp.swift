#if canImport(SwiftUI)
    import SportLookKit
    import SwiftUI

    /// A game night on iOS or macOS: sign in, the games nearby, a game's chat. Built on
    /// Apple platforms only; it uses the same `GameNight` as the command-line sample,
    /// which CI builds and runs, and `ChatRoomModel` for the chat.
    @main
    struct SportLookSampleApp: App {
        @State private var night = GameNight(server: URL(string: "http://127.0.0.1:8080")!)
        @State private var me: Profile?

        var body: some Scene {
            WindowGroup {
                NavigationStack {
                    if let me {
                        GamesView(night: night, me: me)
                    } else {
                        SignInView(night: night) { me = $0 }
                    }
                }
            }
        }
    }

    /// Email and password; signs up with a name when the email has no account.
    struct SignInView: View {
        let night: GameNight
        let signedIn: (Profile) -> Void
        @State private var email = ""
        @State private var password = ""
        @State private var name = ""
        @State private var failure: String?

        var body: some View {
            Form {
                TextField("Email", text: $email)
                SecureField("Password", text: $password)
                TextField("Name (to sign up)", text: $name)
                if let failure { Text(failure).foregroundStyle(.red) }
                Button("Sign in") {
                    Task {
                        do {
                            signedIn(try await night.signIn(email: email, password: password, name: name.isEmpty ? nil : name))
                        } catch let error as SportLookError {
                            failure = error.message
                        } catch {
                            failure = error.localizedDescription
                        }
                    }
                }
            }
            .navigationTitle("SportLook")
        }
    }
#endif
