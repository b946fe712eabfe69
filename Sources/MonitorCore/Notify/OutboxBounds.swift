import Foundation
import MonitorText

/// How much of the outbox one notifier may hold (its `max_pending` and `max_age`): beyond either, its oldest
/// notifications still to deliver are dropped, each one reported, so that a receiver that stays down costs a bounded
/// amount of state.
package struct OutboxBounds: Sendable, Hashable {
    /// The most notifications that may wait for the notifier.
    package var count: Int
    /// The longest a notification may wait, from the poll that wrote it.
    var age: Duration

    package init(count: Int, age: Duration) {
        self.count = count
        self.age = age
    }

    /// Why a notification of `notifier` was dropped for the count.
    package func countReason(notifier: String) -> String {
        "more than \(count) notification\(count == 1 ? "" : "s") waited for \(notifier) (max_pending)"
    }

    /// Why a notification was dropped for its age.
    package var ageReason: String {
        "not delivered within \(DurationFormat.string(age)) (max_age)"
    }

    /// The time before which a notification is too old at `now`.
    package func oldest(at now: Date) -> Date {
        now.addingTimeInterval(-age.seconds)
    }
}

/// A notification dropped from the outbox undelivered, its notifier's bounds exceeded.
package struct DroppedNotification: Sendable, Hashable {
    var notification: FeedNotification
    /// Why it was dropped (which bound).
    var reason: String

    package init(notification: FeedNotification, reason: String) {
        self.notification = notification
        self.reason = reason
    }
}
