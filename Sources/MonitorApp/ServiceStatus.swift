import Foundation
import MonitorCore

/// The one line `monitor run` gives systemd as `STATUS=`: how many feeds are scheduled, how many of them are ok
/// (or not polled yet), failing, or held back by their server after their last poll, and how many notifications wait
/// in the outbox — `2 feeds: 1 ok, 1 failing, 0 held back; 0 notifications pending` — after a rejected reload's
/// `feeds file invalid (line 14): running the last valid one; ` until a reload succeeds.
package struct ServiceStatus: Sendable {
    /// None scheduled yet.
    package init() {}

    private var feeds: Set<String> = []
    private var failing: Set<String> = []
    private var held: Set<String> = []
    private var rejected: String?
    /// The notifications waiting in the outbox.
    package var pending = 0

    /// Takes `event` into account (at `now`); returns whether the outbox may have changed (a poll found new items, a
    /// delivery was attempted), so that its count is read again.
    package mutating func show(_ event: PollEvent, now: Date) -> Bool {
        switch event {
        case .scheduled(let feed, _, _):
            feeds.insert(feed)
        case .stopped(let feed):
            feeds.remove(feed)
            failing.remove(feed)
            held.remove(feed)
        case .finished(let report):
            let feed = report.feed
            if report.isFailure { failing.insert(feed) } else { failing.remove(feed) }
            if let notBefore = report.notBefore, notBefore > now { held.insert(feed) } else { held.remove(feed) }
            return report.new > 0
        case .delivery:
            return true
        case .reload(let rejected):
            self.rejected = rejected
        case .view, .polling, .lease, .notice, .state:
            break
        }
        return false
    }

    /// The line.
    package var line: String {
        let failing = failing.intersection(feeds).count
        let held = held.intersection(feeds).subtracting(self.failing).count
        let ok = feeds.count - failing - held
        return (rejected.map { $0 + "; " } ?? "")
            + "\(feeds.count) feed\(feeds.count == 1 ? "" : "s"): \(ok) ok, \(failing) failing, \(held) held back; "
            + "\(pending) notification\(pending == 1 ? "" : "s") pending"
    }
}
