import Foundation

/// What the engine reports while it polls feeds.
package enum PollEvent: Sendable {
    /// A poll's display changed: the catalog joined with the running counts and progress.
    case view(FeedView)
    /// A poll ended.
    case finished(PollReport)
    /// A feed waits for its next poll, due at the given time; `skipped` slots passed while the last poll ran. `hold`:
    /// what it waits for, when the server holds it back (its stored hold after a restart, or its minimum interval).
    case scheduled(feed: String, next: Date, skipped: Int, hold: RateBudgets.Hold? = nil)
    /// A feed's poll started.
    case polling(feed: String)
    /// On a shared schedule: who holds the feed's lease, as last seen (this instance when it claimed or renewed it,
    /// another instance when a claim found it held), and until when; nil when no instance does.
    case lease(feed: String, holder: FeedHolder?)
    /// A feed was removed from the schedule.
    case stopped(feed: String)
    /// A message for the log, such as a reloaded configuration.
    case notice(String)
    /// The feeds file was reloaded (nil), or a change of it was not taken (`rejected` says why and that the last valid
    /// feeds keep running): every view shows the last reload's outcome until the next one.
    case reload(rejected: String?)
    /// An attempt at delivering a notification, or a notification dropped from the outbox (its notifier's bounds
    /// exceeded).
    case delivery(NotificationDelivery.Attempt)
    /// The state could not be reached (`unreachable` says why) where it answered before, or (nil) answers again: said
    /// once for every feed.
    case state(unreachable: StateError?)
}
