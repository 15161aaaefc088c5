import Foundation

/// Events as iCalendar (RFC 5545) for phone calendars: one event, or a person's feed.
///
/// Each event is a VEVENT with a stable UID (`<id>@sportlook`), a SEQUENCE that grows
/// with every change (the event's version), `STATUS:CANCELLED` once cancelled, and its
/// start and end in the place's time zone (`DTSTART;TZID=Europe/Copenhagen:…`), each
/// zone used described by a VTIMEZONE built from the zone's own transitions around the
/// events' dates. Lines end in CRLF and are folded at 75 octets; text is escaped.
enum ICalendar {
    /// A whole calendar of `events`, named `name`.
    static func calendar(_ events: [Event], name: String, now: Date) -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//SportLook//SportLook server//EN", "CALSCALE:GREGORIAN", "METHOD:PUBLISH",
            "X-WR-CALNAME:" + escape(name),
        ]
        var zones: [String: [Date]] = [:]
        for event in events where event.timeZone != "UTC" { zones[event.timeZone, default: []].append(event.startsAt) }
        for (identifier, dates) in zones.sorted(by: { $0.key < $1.key }) {
            if let zone = TimeZone(identifier: identifier) { lines += timeZone(zone, around: dates) }
        }
        for event in events { lines += vevent(event, now: now) }
        lines.append("END:VCALENDAR")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    static func vevent(_ event: Event, now: Date) -> [String] {
        var lines = [
            "BEGIN:VEVENT", "UID:\(event.id.lowercased)@sportlook", "SEQUENCE:\(event.version)",
            "DTSTAMP:" + utc(now), "LAST-MODIFIED:" + utc(event.updatedAt), "CREATED:" + utc(event.createdAt),
        ]
        if event.timeZone == "UTC" || TimeZone(identifier: event.timeZone) == nil {
            lines += ["DTSTART:" + utc(event.startsAt), "DTEND:" + utc(event.endsAt)]
        } else if let zone = TimeZone(identifier: event.timeZone) {
            lines += [
                "DTSTART;TZID=\(event.timeZone):" + local(event.startsAt, in: zone),
                "DTEND;TZID=\(event.timeZone):" + local(event.endsAt, in: zone),
            ]
        }
        lines += [
            "SUMMARY:" + escape(event.title), "STATUS:" + (event.status == .cancelled ? "CANCELLED" : "CONFIRMED"),
            String(format: "GEO:%.6f;%.6f", event.location.lat, event.location.lon),
        ]
        if let address = event.address, !address.isEmpty { lines.append("LOCATION:" + escape(address)) }
        if !event.description.isEmpty { lines.append("DESCRIPTION:" + escape(event.description)) }
        lines.append("ORGANIZER;CN=\(parameter(event.organiserName)):urn:uuid:\(event.organiserID.lowercased)")
        lines.append("END:VEVENT")
        return lines
    }

    /// A VTIMEZONE for `zone` covering `dates`: an observance for each offset change from
    /// the year before the first to the year after the last (so one is in force before
    /// the first date), or one standard offset for a zone without changes.
    static func timeZone(_ zone: TimeZone, around dates: [Date]) -> [String] {
        var lines = ["BEGIN:VTIMEZONE", "TZID:" + zone.identifier]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let years = Set(dates.map { calendar.component(.year, from: $0) })
        guard let firstYear = years.min(), let lastYear = years.max(),
            var cursor = calendar.date(from: DateComponents(year: firstYear - 1, month: 1, day: 1)),
            let end = calendar.date(from: DateComponents(year: lastYear + 2, month: 1, day: 1))
        else { return lines + ["END:VTIMEZONE"] }
        var transitions: [Date] = []
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next < end, transitions.count < 64 {
            transitions.append(next)
            cursor = next
        }
        if transitions.isEmpty {
            let offset = zone.secondsFromGMT(for: dates.first ?? Date())
            lines += [
                "BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:" + offsetText(offset), "TZOFFSETTO:" + offsetText(offset),
                "TZNAME:" + (zone.abbreviation(for: dates.first ?? Date()) ?? zone.identifier), "END:STANDARD",
            ]
        }
        for transition in transitions {
            let before = zone.secondsFromGMT(for: transition.addingTimeInterval(-1))
            let after = zone.secondsFromGMT(for: transition)
            let kind = zone.isDaylightSavingTime(for: transition) ? "DAYLIGHT" : "STANDARD"
            // The observance starts at the local time the clock shows just before it changes.
            let onset = local(transition, offset: before)
            lines += [
                "BEGIN:\(kind)", "DTSTART:" + onset, "TZOFFSETFROM:" + offsetText(before), "TZOFFSETTO:" + offsetText(after),
                "TZNAME:" + (zone.abbreviation(for: transition) ?? zone.identifier), "END:\(kind)",
            ]
        }
        return lines + ["END:VTIMEZONE"]
    }

    // MARK: Values

    static func utc(_ date: Date) -> String { local(date, offset: 0) + "Z" }

    static func local(_ date: Date, in zone: TimeZone) -> String { local(date, offset: zone.secondsFromGMT(for: date)) }

    /// `YYYYMMDDTHHMMSS` of `date` shifted by `offset` seconds.
    static func local(_ date: Date, offset: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let p = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date.addingTimeInterval(Double(offset)))
        return String(
            format: "%04d%02d%02dT%02d%02d%02d", p.year ?? 1970, p.month ?? 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second ?? 0)
    }

    static func offsetText(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let magnitude = abs(seconds)
        return String(format: "%@%02d%02d", sign, magnitude / 3_600, magnitude % 3_600 / 60)
    }

    /// TEXT escaping (§3.3.11): backslash, semicolon, comma and line breaks.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": out += "\\n"
            case "\r": continue
            default: if scalar.value >= 0x20 || scalar == "\t" { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// A parameter value (§3.2): quoted, without the characters a quoted value cannot hold.
    static func parameter(_ text: String) -> String {
        "\"" + String(text.unicodeScalars.filter { $0 != "\"" && $0.value >= 0x20 }.map(Character.init)) + "\""
    }

    /// Folds a content line into lines of at most 75 octets, never inside a UTF-8
    /// sequence (§3.1). It folds between scalars, not characters: one character (a
    /// letter with many combining marks) may be longer than a line.
    static func fold(_ line: String) -> String {
        guard line.utf8.count > 75 else { return line }
        var out: [UInt8] = []
        var length = 0
        out.reserveCapacity(line.utf8.count + line.utf8.count / 37)
        for scalar in line.unicodeScalars {
            let size = scalar.utf8.count
            if length + size > 75 {
                out += [13, 10, 32]
                length = 1
            }
            out.append(contentsOf: scalar.utf8)
            length += size
        }
        return String(decoding: out, as: UTF8.self)
    }
}
