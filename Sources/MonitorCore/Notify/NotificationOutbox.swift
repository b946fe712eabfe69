import MonitorConcurrency
import Synchronization

/// What the polls of a run share with its delivery: the notifiers to plan notifications for, and a wake-up for
/// the delivery each time a poll committed some.
package final class NotificationOutbox: Sendable {
    private let current: Mutex<[NotifierConfig]>
    /// Signalled after each commit that added notifications.
    package let wakeup = Wakeup()

    /// An outbox planning for `notifiers`.
    package init(notifiers: [NotifierConfig]) {
        current = Mutex(notifiers)
    }

    /// The notifiers of the feeds file (replaced when it is reloaded).
    package var notifiers: [NotifierConfig] {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// A poll committed `notifications` to the state: wakes the delivery.
    func committed(_ notifications: [FeedNotification]) {
        if !notifications.isEmpty { wakeup.signal() }
    }
}
