import Foundation

/// HTTP dates (`Sun, 22 Nov 2026 05:00:00 GMT`), as `Last-Modified` and `If-Modified-Since` write them.
enum HTTPDate {
    /// `date` as an HTTP date.
    static func string(_ date: Date) -> String {
        formatter().string(from: date)
    }

    /// The date of an HTTP date, nil when `text` is not one.
    static func date(_ text: String) -> Date? {
        formatter().date(from: text.trimmingCharacters(in: .whitespaces))
    }

    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}
