import Foundation

/// What a game costs, in its currency's minor units (øre, cents, yen): each player's
/// price, or (`split`) the whole game's cost divided between those who play. Leaving
/// less than `lateCancelHours` before the start keeps what one owes.
public struct Price: Sendable, Hashable, Codable {
    public var amount: Int
    public var currency: String
    public var split: Bool
    public var lateCancelHours: Int

    public static let defaultLateCancelHours = 24
    /// A million of the currency's units at most (in minor units: 100,000,000 cents).
    public static let maxMinorUnits = 100_000_000
    public static let lateCancelRange = 0...168

    /// The currencies a price may be in (ISO 4217), with the digits of their minor unit.
    public static let currencies: [String: Int] = [
        "AUD": 2, "BGN": 2, "BRL": 2, "CAD": 2, "CHF": 2, "CNY": 2, "CZK": 2, "DKK": 2, "EUR": 2, "GBP": 2, "HKD": 2, "HUF": 2,
        "INR": 2, "ISK": 0, "JPY": 0, "KRW": 0, "MXN": 2, "NOK": 2, "NZD": 2, "PLN": 2, "RON": 2, "SEK": 2, "SGD": 2, "USD": 2,
        "ZAR": 2,
    ]

    /// When leaving stops voiding what one owes.
    func lateCancelTime(startsAt: Date) -> Date { startsAt.addingTimeInterval(-Double(lateCancelHours) * 3_600) }

    /// `amount` split between `count` people in order: everyone gets the same whole
    /// minor units, and the first `amount % count` one more, so the shares add up.
    static func shares(of amount: Int, between count: Int) -> [Int] {
        guard count > 0 else { return [] }
        let (each, rest) = amount.quotientAndRemainder(dividingBy: count)
        return (0..<count).map { each + ($0 < rest ? 1 : 0) }
    }

    /// `-25.50` for -2550 in a currency of two decimals (`separator` between the units and the minor units).
    static func decimal(_ minor: Int, currency: String, separator: String = ".") -> String {
        let digits = currencies[currency] ?? 2
        guard digits > 0 else { return String(minor) }
        var divisor = 1
        for _ in 0..<digits { divisor *= 10 }
        let (whole, part) = minor.magnitude.quotientAndRemainder(dividingBy: UInt(divisor))
        let fraction = String(part)
        return (minor < 0 ? "-" : "") + "\(whole)" + separator + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// As kept in the `price` column: `{"amount":…,"currency":…,"split":…,"late_cancel_hours":…}`.
    var stored: String {
        #"{"amount":\#(amount),"currency":"\#(currency)","split":\#(split),"late_cancel_hours":\#(lateCancelHours)}"#
    }

    /// From the `price` column (nil for none, or for a row no version wrote).
    init?(stored: String?) {
        guard let stored, let data = stored.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let amount = object["amount"] as? Int, let currency = object["currency"] as? String,
            let split = object["split"] as? Bool, let hours = object["late_cancel_hours"] as? Int
        else { return nil }
        self.init(amount: amount, currency: currency, split: split, lateCancelHours: hours)
    }

    public init(amount: Int, currency: String, split: Bool, lateCancelHours: Int = Price.defaultLateCancelHours) {
        self.amount = amount
        self.currency = currency
        self.split = split
        self.lateCancelHours = lateCancelHours
    }
}
