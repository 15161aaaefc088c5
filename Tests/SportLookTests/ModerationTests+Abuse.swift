import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

extension ModerationTests {
    /// The request's client address, as a trusted proxy (loopback, in these tests) tells it.
    static func from(_ address: String) -> HTTPFields { [HTTPField.Name("X-Forwarded-For")!: address] }

    static func register(_ api: API, _ email: String, from address: String) async throws -> Reply {
        try await api.request(
            .post, "/v1/auth/register", json: ["name": "Someone", "email": email, "password": "correct horse battery"],
            headers: from(address))
    }

    @Test(
        "the abuse panel counts registrations and failed sign-ins per network (an IPv4 /24, an IPv6 /48) over the last hour and this server's refusals by limit; an hour later they are gone",
        arguments: engines)
    func abusePanel(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        let loopback = [try #require(AddressRange(cidr: "127.0.0.0/8")), try #require(AddressRange(cidr: "::1"))]
        try await withApp(
            engine, clock: clock, setup: .live,
            configure: {
                $0.trustedProxies = loopback
                $0.loginMaxFailures = 2
            }
        ) { api, services in
            let (_, mo) = try await Self.staff(api, services)
            for (n, address) in ["203.0.113.5", "203.0.113.9", "2001:db8:1:2::5"].enumerated() {
                #expect(try await Self.register(api, "new\(n)@example.com", from: address).status == .created)
            }
            // Two wrong passwords from one address, then the limit refuses the third unchecked.
            for attempt in 0..<3 {
                let refused = try await api.request(
                    .post, "/v1/auth/login", json: ["email": "new0@example.com", "password": "guess \(attempt)"],
                    headers: Self.from("198.51.100.7"))
                #expect(refused.status == (attempt < 2 ? .unauthorized : .tooManyRequests))
            }
            let panel = try await api.get("/v1/staff/abuse", token: mo.token).decode(JSONValue.self, expecting: .ok)
            let networks = try #require(panel["networks"]?.array).reduce(into: [String: [Int]]()) { found, row in
                found[row["network"]?.string ?? ""] = [row["registrations"]?.int ?? -1, row["failed_sign_ins"]?.int ?? -1]
            }
            #expect(networks["203.0.113.0/24"] == [2, 0])
            #expect(networks["2001:db8:1::/48"] == [1, 0])
            #expect(networks["198.51.100.0/24"] == [0, 2])
            // The account shows the networks it signed in from, and its record (none yet).
            let listed = try await api.get("/v1/staff/accounts?q=new2@example.com", token: mo.token).decode(JSONValue.self)
            let found = try #require(listed["items"]?.array?.first)
            #expect(found["sign_in_networks"] == nil, "a list leaves the page's detail out")
            let account = try await api.get("/v1/staff/accounts/\(found["id"]?.string ?? "")", token: mo.token).decode(
                JSONValue.self, expecting: .ok)
            #expect(account["sign_in_networks"]?.array?.compactMap { $0["network"]?.string } == ["2001:db8:1::/48"])
            #expect(account["record"]?["games"]?.int == 0 && account["record"]?["no_shows"]?.int == 0)
            let refusals = try #require(panel["refusals"]?.array)
            #expect(refusals.contains { $0["code"]?.string == "too_many_attempts" && $0["count"]?.int == 1 }, "\(refusals)")

            clock.advance(by: 3_660)
            let later = try await api.get("/v1/staff/abuse", token: mo.token).decode(JSONValue.self, expecting: .ok)
            #expect(later["networks"]?.array?.isEmpty == true && later["refusals"]?.array?.isEmpty == true)
        }
    }

    @Test(
        "an admin blocks an address range and an email domain from registering (each an audit row; a moderator may not): registrations from them get 403 registration_blocked, others pass; lifted, they pass again",
        arguments: engines)
    func registrationBlocks(engine: DatabaseEngine) async throws {
        let loopback = [try #require(AddressRange(cidr: "127.0.0.0/8")), try #require(AddressRange(cidr: "::1"))]
        try await withApp(engine, setup: .live, configure: { $0.trustedProxies = loopback }) { api, services in
            let (ada, mo) = try await Self.staff(api, services)
            func block(_ kind: String, _ value: String, token: String) async throws -> Reply {
                try await api.post("/v1/staff/abuse/blocks", token: token, json: ["kind": kind, "value": value, "reason": "sign-up spam"])
            }
            let refused = try await block("network", "203.0.113.7/24", token: mo.token)
            #expect(try refused.status == .forbidden && Self.code(refused) == "admins_only")
            let made = try await block("network", "203.0.113.7/24", token: ada.token).decode(JSONValue.self, expecting: .created)
            #expect(made["block"]?["value"]?.string == "203.0.113.0/24", "kept canonically")
            #expect(made["action"]?["action"]?.string == "registration_blocked")
            let again = try await block("network", "203.0.113.0/24", token: ada.token).decode(JSONValue.self, expecting: .ok)
            #expect(again["action"] == .null && again["block"]?["id"] == made["block"]?["id"])
            #expect(try await block("email_domain", "@Spam.Example.", token: ada.token).status == .created)
            for (kind, value) in [
                ("network", "2001:db8::/96"), ("network", "203.0.113.300"), ("network", "0.0.0.0/0"), ("network", "2000::/8"),
                ("email_domain", "localhost"), ("other", "x.y"),
            ] {
                let bad = try await block(kind, value, token: ada.token)
                #expect(bad.status == .unprocessableContent, "\(kind) \(value)")
            }

            let blocked = try await Self.register(api, "eve@example.com", from: "203.0.113.200")
            #expect(try blocked.status == .forbidden && Self.code(blocked) == "registration_blocked")
            for email in ["eve@spam.example", "eve@mail.spam.example"] {
                let byDomain = try await Self.register(api, email, from: "192.0.2.1")
                #expect(try byDomain.status == .forbidden && Self.code(byDomain) == "registration_blocked", "\(email)")
            }
            #expect(try await Self.register(api, "eve@notspam.example", from: "192.0.2.1").status == .created)
            #expect(try await Self.register(api, "dan@example.com", from: "203.0.114.1").status == .created)
            // Nothing was made for the refused ones: not even a count on the panel.
            let panel = try await api.get("/v1/staff/abuse", token: mo.token).decode(JSONValue.self, expecting: .ok)
            #expect(panel["blocks"]?.array?.count == 2)
            #expect(panel["refusals"]?.array?.contains { $0["code"]?.string == "registration_blocked" && $0["count"]?.int == 3 } == true)
            #expect(panel["networks"]?.array?.contains { $0["network"]?.string == "203.0.113.0/24" } == false)

            let id = try #require(made["block"]?["id"]?.string)
            let modLift = try await api.post("/v1/staff/abuse/blocks/\(id)/lift", token: mo.token, json: ["reason": "a school"])
            #expect(modLift.status == .forbidden)
            let lifted = try await api.post("/v1/staff/abuse/blocks/\(id)/lift", token: ada.token, json: ["reason": "a school"])
                .decode(API.AuditRow.self, expecting: .ok)
            #expect(lifted.action == "registration_unblocked" && lifted.details.additionalProperties["value"] == "203.0.113.0/24")
            #expect(
                try await api.post("/v1/staff/abuse/blocks/\(id)/lift", token: ada.token, json: ["reason": "again"]).status == .notFound)
            #expect(try await Self.register(api, "eve@example.com", from: "203.0.113.200").status == .created)
            let audit = try await api.get("/v1/staff/audit?target_id=\(id)", token: ada.token).decode(API.Page<API.AuditRow>.self)
            #expect(audit.items.map(\.action) == ["registration_unblocked", "registration_blocked"])
        }
    }
}
