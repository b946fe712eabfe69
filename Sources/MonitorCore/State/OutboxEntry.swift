import Foundation

/// One notification of the outbox, with how its deliveries went.
package struct OutboxEntry: Sendable, Hashable {
    /// The notification.
    var notification: FeedNotification
    /// How many deliveries failed.
    var attempts = 0
    /// Not to be tried again before this time; nil for at once.
    var nextAttempt: Date?
    /// Why the last delivery failed.
    var lastError: String?
    /// When its receiver refused it (it is not tried again); nil while it is to be delivered.
    var refusedAt: Date?
    /// Its place in the outbox: a notification written later has a larger one.
    var sequence: Int64 = 0
    /// When the state says it was written, where that is earlier than the notification's own time (only after
    /// ``StateStoring/clampOutbox(now:longest:)`` brought it back, the clock stepped back): its digest period counts
    /// from then. The notification itself is sent as it was written.
    var written: Date?

    /// How long a notification its receiver refused (a 4xx) is kept, for `monitor status`, before it is dropped.
    package static let refusedLifetime: TimeInterval = 7 * 86_400
}

// MARK: - Digest

extension OutboxEntry {
    /// When the digest of a notifier whose oldest collected notification is this one is due: one period after the
    /// poll that wrote it, or, after a failed attempt (when `retrying`), at its next attempt if that is later. When the
    /// notifier is `full` (it holds as many as its `max_pending` allows, so the next poll drops its oldest and with it
    /// the start of the period), no later than one period after it `lastDelivered` (at once when it never did): a
    /// steady flood cannot put its digest off for ever.
    package func digestDue(
        every period: Duration, retrying: Bool = true, full: Bool = false, lastDelivered: Date? = nil
    ) -> Date {
        let start = written ?? notification.at
        var due = start.addingTimeInterval(period.seconds)
        if full { due = min(due, lastDelivered.map { $0.addingTimeInterval(period.seconds) } ?? start) }
        guard retrying, let nextAttempt else { return due }
        return max(due, nextAttempt)
    }
}

// MARK: - Stored

extension OutboxEntry {
    /// The entry of a row of the outbox as both databases store it (the notification as ``StoredJSON``, times in
    /// seconds since 1970), ``written`` when `created` is earlier than the notification's time (as
    /// ``StateStoring/clampOutbox(now:longest:)`` makes it after the clock was stepped back); nil when the
    /// notification does not decode (written by a later version), which is left for that version.
    package init?(
        content: String, created: Double, attempts: Int, nextAttempt: Double?, lastError: String?, refusedAt: Double?,
        sequence: Int64
    ) {
        guard let notification = StoredJSON.value(FeedNotification.self, from: content) else { return nil }
        self.init(
            notification: notification, attempts: attempts,
            nextAttempt: nextAttempt.map(Date.init(timeIntervalSince1970:)), lastError: lastError,
            refusedAt: refusedAt.map(Date.init(timeIntervalSince1970:)), sequence: sequence)
        // Only a time brought back counts (the notification's own is kept to the millisecond, `created` is not).
        let written = Date(timeIntervalSince1970: created)
        if written < notification.at.addingTimeInterval(-1) { self.written = written }
    }
}

/// What the state knows of one notifier's deliveries, for `monitor status`.
package struct NotifierStatus: Sendable, Hashable {
    /// The notifier's name.
    package var name: String
    /// Notifications still to deliver.
    package var pending = 0
    /// Notifications its receiver refused, kept for a while.
    package var refused = 0
    /// Notifications dropped undelivered, its bounds exceeded (`max_pending`, `max_age`), ever.
    package var dropped = 0
    /// Why its last failed delivery failed.
    package var lastError: String?
    /// When that was.
    package var lastErrorAt: Date?
    /// When it last delivered one.
    package var lastDelivered: Date?

    /// The status of a notifier with nothing stored.
    package init(name: String) {
        self.name = name
    }

    /// The status as both databases store it (times in seconds since 1970), nothing pending or refused yet.
    package init(name: String, lastError: String?, lastErrorAt: Double?, lastDelivered: Double?, dropped: Int) {
        self.name = name
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt.map(Date.init(timeIntervalSince1970:))
        self.lastDelivered = lastDelivered.map(Date.init(timeIntervalSince1970:))
        self.dropped = dropped
    }
}
