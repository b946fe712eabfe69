import Foundation
import MonitorCore

/// The one line `monitor run` gives systemd as `STATUS=`: how many feeds are scheduled, how many of them are ok
/// (or not polled yet), failing, or held back by their server, and how many notifications wait in the outbox —
/// `2 feeds: 1 ok, 1 failing, 0 held back; 0 notifications pending` — after a rejected reload's
/// `feeds file invalid (line 14): running the last valid one; ` until a reload succeeds. Read from the run's one
/// ``RunHealth``, which `/healthz` answers from too.
package struct ServiceStatus: Sendable {
    private let health: RunHealth
    /// When the last event was taken.
    private var now = Date.distantPast
    /// The notifications waiting in the outbox.
    package var pending = 0

    /// The line of `health`'s feeds (a health of its own by default).
    package init(health: RunHealth = RunHealth()) {
        self.health = health
    }

    /// Takes `event` into the run's health at `now`; returns whether the outbox may have changed (a poll found new
    /// items, a delivery was attempted), so that its count is read again.
    package mutating func show(_ event: PollEvent, now: Date) -> Bool {
        health.apply(event, now: now)
        self.now = now
        switch event {
        case .finished(let report): return report.new > 0
        case .delivery: return true
        default: return false
        }
    }

    /// The line.
    package var line: String {
        let (counts, rejected) = health.status(now: now)
        let ok = counts.feeds - counts.failing - counts.held
        return (rejected.map { $0 + "; " } ?? "")
            + "\(counts.feeds) feed\(counts.feeds == 1 ? "" : "s"): \(ok) ok, \(counts.failing) failing, "
            + "\(counts.held) held back; \(pending) notification\(pending == 1 ? "" : "s") pending"
    }
}
