import Foundation
import MonitorJSON

/// How every time people read is written: in UTC, as the logs and the JSON outputs are, whatever `TZ` says; the views
/// say so in their headers (`date (UTC)`, `latest (UTC)`, the full screen's clock).
package enum UTCTime {
    /// `2026-11-22 04:10`, as Foundation's Gregorian calendar writes it.
    package static func minute(_ date: Date) -> String {
        let (days, time) = split(date)
        // Whole seconds; a date beyond the clamp (a few million years away) as Foundation writes it.
        let whole = Date(timeIntervalSince1970: Double(days * 86_400 + time))
        let text = ISO8601.fixedString(abs(date.timeIntervalSince1970) > 1e14 ? date : whole)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
    }

    /// `04:10:05`.
    package static func clock(_ date: Date) -> String {
        let time = split(date).time
        return "\(two(time / 3600)):\(two(time % 3600 / 60)):\(two(time % 60))"
    }

    /// `2026-11-22 04:10:05 UTC`.
    package static func full(_ date: Date) -> String {
        "\(minute(date)):\(two(split(date).time % 60)) UTC"
    }

    /// `04:10:05` within a day of `now`, else `2026-11-22 04:10`.
    package static func moment(_ date: Date, now: Date) -> String {
        abs(date.timeIntervalSince(now)) < 86_400 ? clock(date) : minute(date)
    }

    /// Twelve characters: `       04:10` on `now`'s day, `Nov 21 04:10` in its year, `2025-11-21  ` before.
    package static func short(_ date: Date, now: Date) -> String {
        let text = minute(date)
        let today = minute(now)
        if text.prefix(10) == today.prefix(10) { return "       " + text.suffix(5) }
        guard text.prefix(4) == today.prefix(4), let month = Int(text.dropFirst(5).prefix(2)), (1...12).contains(month)
        else { return text.prefix(10) + "  " }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let day = text.dropFirst(8).prefix(2)
        return "\(months[month - 1]) \(day.hasPrefix("0") ? " " + day.dropFirst() : day) \(text.suffix(5))"
    }

    /// The days since 1970-01-01 and the seconds into that day, of a date clamped within ±3 million years.
    private static func split(_ date: Date) -> (days: Int, time: Int) {
        let interval = date.timeIntervalSince1970
        let seconds = interval.isNaN ? 0 : Int(max(-1e14, min(1e14, interval)).rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (days, seconds - days * 86_400)
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
