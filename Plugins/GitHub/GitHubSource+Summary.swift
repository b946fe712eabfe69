import Foundation
import MonitorCore
import MonitorText

// MARK: - Summary

extension GitHubSource {
    /// The headline; the event types with their counts and what is new, most frequent first; the latest five
    /// events with their repository; the rate limit the server reported last.
    package func summary(of report: PollReport, now: Date) -> String {
        var sorted = report
        sorted.groups = report.groups.filter { $0.count > 0 }.sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.title < $1.title
        }
        var output = SummaryText.standard(sorted, now: now, groupHeader: "event type") { item in
            item.detail("repo").map { "  (\(TerminalText.sanitized($0)))" } ?? ""
        }
        if let line = Self.rateLimitLine(report.rateLimit) {
            output += "  \(line)\n"
        }
        return output
    }

    /// `rate limit: 57/60 remaining, resets 05:12 UTC`, nil when the server reported none.
    static func rateLimitLine(_ limit: RateLimit?) -> String? {
        guard let limit, let remaining = limit.remaining else { return nil }
        var line = "rate limit: \(remaining)\(limit.limit.map { "/\($0)" } ?? "") remaining"
        if let reset = limit.reset { line += ", resets \(UTCTime.minute(reset).suffix(5)) UTC" }
        if let resource = limit.resource, resource != GitHubHTTPPolicy().defaultResource {
            line += " (\(TerminalText.sanitized(resource)))"
        }
        return line
    }
}
