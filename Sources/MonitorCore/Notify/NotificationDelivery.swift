import Foundation
import Logging
import MonitorConcurrency
import MonitorText
import Synchronization

/// Delivers the outbox: each notification through its notifier, removed from the state once delivered, tried
/// again with backoff when a later attempt may succeed, kept a while and not tried again when its receiver
/// refused it.
///
/// Each notifier delivers its notifications one after another, in the order the polls wrote them, the next only
/// once the one before is delivered (or refused); notifiers deliver concurrently, so one that hangs or fails
/// delays no other, and no delivery ever fails a poll. Only each notifier's oldest notification (its head) is read,
/// never the whole outbox, and each notifier keeps at most what its ``OutboxBounds`` allow: the oldest beyond them
/// are dropped, each one reported.
package final class NotificationDelivery: Sendable {
    /// How failed deliveries are spaced unless told otherwise: from 5 s to 15 minutes.
    package static let standardBackoff = Backoff(base: .seconds(5), maximum: .seconds(15 * 60))

    /// What one attempt came to, or what became of a notification dropped without one.
    package struct Attempt: Sendable, Hashable {
        package enum Result: Sendable, Hashable {
            /// Delivered: the receiver's answer.
            case delivered(String)
            /// Failed; tried again from `next`.
            case willRetry(String, next: Date)
            /// Refused by the receiver: not tried again.
            case refused(String)
            /// Dropped undelivered, its notifier's bounds (`max_pending`, `max_age`) exceeded: why.
            case dropped(String)
        }

        package var notification: FeedNotification
        package var result: Result
    }

    /// What the delivery has to deliver through.
    private struct Configured {
        var notifiers: [String: any Notifier]
        var bounds: [String: OutboxBounds]
        /// The digest period of each notifier that has one (`digest:`).
        var digests: [String: Duration] = [:]
    }

    /// What one round came to for one notifier: its attempts with their place in the outbox, and when its next
    /// notification is due (nil: at the next wakeup).
    private struct Queue {
        var attempts: [(sequence: Int64, attempt: Attempt)] = []
        var nextDue: Date?
    }

    private let store: any StateStoring
    private let configured: Mutex<Configured>
    private let clock: any PollClock
    private let backoff: Backoff
    private let logger: Logger
    private let observer: (@Sendable (Attempt) -> Void)?
    private let metrics: MonitorMetrics
    /// Whether reading the outbox or recording an attempt failed since ``run(wakeup:)`` last looked.
    private let storeFailed = Mutex(false)
    /// This instance, as its claims of a shared outbox name it.
    private let owner = FeedLeases.makeOwner()
    /// How long a claim of a notification of a shared outbox holds: longer than any one delivery.
    static let claimLease: Duration = .seconds(120)

    /// A delivery of `store`'s outbox through `notifiers` (by name), each keeping at most what its `bounds` allow (a
    /// notifier without bounds keeps everything), those in `digests` sending one digest per period (by name);
    /// `observer` hears of every attempt and drop, `metrics` counts the failed and dropped ones and how many each
    /// notifier has pending.
    package init(
        store: any StateStoring, notifiers: [String: any Notifier], bounds: [String: OutboxBounds] = [:],
        digests: [String: Duration] = [:], clock: any PollClock = WallClock(), backoff: Backoff = standardBackoff,
        logger: Logger, observer: (@Sendable (Attempt) -> Void)? = nil, metrics: MonitorMetrics = .disabled
    ) {
        self.store = store
        self.configured = Mutex(Configured(notifiers: notifiers, bounds: bounds, digests: digests))
        self.clock = clock
        self.backoff = backoff
        self.logger = logger
        self.observer = observer
        self.metrics = metrics
    }

    /// Replaces the notifiers, their bounds and digest periods (the feeds file was reloaded); notifications of a
    /// notifier no longer configured stay in the outbox.
    package func setNotifiers(
        _ notifiers: [String: any Notifier], bounds: [String: OutboxBounds] = [:], digests: [String: Duration] = [:]
    ) {
        configured.withLock { $0 = Configured(notifiers: notifiers, bounds: bounds, digests: digests) }
    }

    /// Makes one round of the outbox at the clock's time: first drops what each configured notifier's bounds no
    /// longer allow (reported like attempts, as `dropped`), then each configured notifier not in `holding` delivers
    /// its notifications one after another, in the order the polls wrote them, from its oldest (its head) when that
    /// one is due (at once with `all`), until one is not delivered: the rest wait behind it, so that they keep their
    /// order and a receiver that is down is asked once per round, not once per notification. Notifiers deliver
    /// concurrently. Only each notifier's head is read, one at a time, never the whole outbox. Returns the drops,
    /// then the attempts in outbox order.
    @discardableResult
    package func deliverDue(all: Bool = false, holding: Set<String> = []) async -> [Attempt] {
        await round(all: all, holding: holding).attempts
    }

    /// The round of ``deliverDue(all:holding:)``, with the time the first notification left waiting is due.
    private func round(all: Bool, holding: Set<String>) async -> (attempts: [Attempt], nextDue: Date?) {
        let now = clock.now.date
        let configured = self.configured.withLock { $0 }
        let dropped: [Attempt]
        do {
            try await store.dropExpiredNotifications(now: now)
            // The longest wait an attempt is given: what is due later was set before the clock was stepped back.
            try await store.clampOutbox(now: now, longest: max(backoff.maximum, HTTPPolicy.maximumHold))
            let bounds = configured.bounds.filter { configured.notifiers[$0.key] != nil }
            dropped = try await store.dropNotifications(beyond: bounds, now: now).map {
                Self.reported($0, metrics: metrics, logger: logger)
            }
        } catch {
            readFailed(error)
            return ([], nil)
        }
        for drop in dropped { observer?(drop) }
        let queues = await withTaskGroup(of: Queue.self) { group in
            for (name, notifier) in configured.notifiers where !holding.contains(name) {
                let digest = configured.digests[name].map { (period: $0, bound: configured.bounds[name]?.count) }
                group.addTask { await self.deliver(name, through: notifier, digest: digest, all: all, now: now) }
            }
            var queues: [Queue] = []
            for await queue in group { queues.append(queue) }
            return queues
        }
        let attempts = queues.flatMap(\.attempts).sorted { $0.sequence < $1.sequence }.map(\.attempt)
        return (dropped + attempts, queues.compactMap(\.nextDue).min())
    }

    /// Delivers `name`'s notifications through `notifier`, head after head, while each is delivered (or refused);
    /// then sets its pending gauge. With a `digest` period (and its `max_pending` as `bound`), the head is the oldest
    /// notification it collected and is due as ``OutboxEntry/digestDue(every:retrying:full:lastDelivered:)`` says (its
    /// retry wait skipped with `all`, never the period):
    /// what goes is one notification combining every notification collected, which leave the outbox together once it
    /// is delivered (or are refused together); a failed attempt is recorded on the oldest, which keeps the digest's
    /// backoff. What the polls add meanwhile waits for the next digest.
    private func deliver(
        _ name: String, through notifier: any Notifier, digest: (period: Duration, bound: Int?)?, all: Bool, now: Date
    ) async -> Queue {
        var queue = Queue()
        var attempted = Set<String>()
        while !Task.isCancelled {
            let head: OutboxEntry?
            var due: Date?
            do {
                head = try await store.nextNotification(of: name)
                if let head, let digest {
                    // Its last delivery is read only when it is full (at its `max_pending`).
                    var full = false
                    var last: Date?
                    if let bound = digest.bound, try await store.pendingCount(of: name) >= bound {
                        full = true
                        last = try await store.notifierStatuses().first { $0.name == name }?.lastDelivered
                    }
                    due = head.digestDue(every: digest.period, retrying: !all, full: full, lastDelivered: last)
                } else {
                    due = all ? nil : head?.nextAttempt
                }
            } catch {
                readFailed(error)
                break
            }
            // A head attempted in this round is one whose attempt could not be recorded: it waits for the next.
            guard let head, !attempted.contains(head.notification.id) else { break }
            guard (due ?? .distantPast) <= now else {
                queue.nextDue = due
                break
            }
            var entry = head
            var rows: [String]?
            if digest != nil {
                let collected: [OutboxEntry]
                do {
                    collected = try await store.pendingNotifications(of: name)
                } catch {
                    readFailed(error)
                    break
                }
                guard collected.first?.notification.id == head.notification.id else { break }
                entry.notification = .digest(of: collected.map(\.notification), notifier: name, at: now)
                rows = collected.map(\.notification.id)
            }
            attempted.insert(head.notification.id)
            guard let attempt = await attempt(entry, with: notifier, rows: rows) else { break }
            queue.attempts.append((head.sequence, attempt))
            if case .willRetry(_, let next) = attempt.result {
                queue.nextDue = next
                break
            }
        }
        if metrics.isEnabled, !Task.isCancelled, let pending = try? await store.pendingCount(of: name) {
            metrics.notificationsPending(notifier: name, count: pending)
        }
        return queue
    }

    /// Says that the outbox could not be read (the loop then waits the backoff's base); a read cut short because the
    /// delivery stops is not a failure, and says nothing.
    private func readFailed(_ error: any Error) {
        guard !(error is CancellationError), !Task.isCancelled else { return }
        logger.warning("cannot read the notifications outbox", metadata: ["error": "\(error)"])
        storeFailed.withLock { $0 = true }
    }

    /// A notification dropped from the outbox (by a commit or a round), counted in `metrics` and logged: what is
    /// shown of it, like an attempt.
    static func reported(_ dropped: DroppedNotification, metrics: MonitorMetrics, logger: Logger) -> Attempt {
        let notification = dropped.notification
        metrics.notificationDropped(notifier: notification.notifier)
        logger.info(
            "notification dropped",
            metadata: [
                "notifier": "\(notification.notifier)", "id": "\(notification.id)", "reason": "\(dropped.reason)",
            ])
        return Attempt(notification: notification, result: .dropped(dropped.reason))
    }

    /// Delivers until cancelled: everything in the outbox at once, then what polls commit (woken by `wakeup`) and
    /// what is due again after a failure. When the state could not be read or an attempt not recorded, it tries
    /// again after the backoff's step for the rounds failed in a row (5 s, 10 s, … or at a wakeup), so that a passing
    /// store error never stalls the delivery, and a delivery that cannot be recorded (a full disk) is not sent again
    /// every few seconds.
    package func run(wakeup: Wakeup) async {
        var all = true
        var failedRounds = 0
        while !Task.isCancelled {
            let round = await round(all: all, holding: [])
            all = false
            let failed = storeFailed.withLock { failed in
                defer { failed = false }
                return failed
            }
            // The next attempt due: that of the oldest notification of each notifier (the others wait for it); after
            // the backoff's step when the store failed. Woken a millisecond after, the round finds it due.
            let now = clock.now
            var due = round.nextDue.map { max(WallClock.Instant($0), now) }
            failedRounds = failed ? failedRounds + 1 : 0
            if failed { due = now.advanced(by: backoff.step(after: failedRounds)) }
            if let due {
                try? await wakeup.wait(until: due.advanced(by: .milliseconds(1)), on: clock)
            } else {
                await wakeup.wait()
            }
        }
    }

    /// One attempt at `entry`, recorded in the state on the outbox's notifications `rows` (by default the entry's
    /// own; for a digest, those it combines: a failure is recorded on the first, the oldest, and a delivery or refusal
    /// on all); nil when cancelled, or when another instance sharing the outbox claimed the first (nothing is
    /// recorded).
    private func attempt(_ entry: OutboxEntry, with notifier: any Notifier, rows: [String]? = nil) async -> Attempt? {
        let notification = entry.notification
        let head = rows?.first ?? notification.id
        if let shared = store as? any OutboxClaiming {
            // Another instance delivers it (and the notifier's later ones, in order), or it was delivered already.
            do {
                guard
                    try await shared.claimNotification(
                        head, owner: owner, lease: Self.claimLease, now: clock.now.date)
                else { return nil }
            } catch {
                if !Task.isCancelled {
                    logger.warning("cannot claim a notification", metadata: ["error": "\(error)"])
                }
                return nil
            }
        }
        let result: Attempt.Result
        do {
            let receipt = try await notifier.deliver(notification)
            result = .delivered(receipt.answer)
        } catch is CancellationError {
            return nil
        } catch {
            if Task.isCancelled { return nil }
            let failure = error as? DeliveryError ?? .retry(TerminalText.sanitized("\(error)"))
            switch failure {
            case .permanent(let message):
                result = .refused(message)
            case .retry(let message, let after):
                let wait = backoff.delay(afterAttempts: entry.attempts + 1, retryAfter: after, random: clock.random())
                result = .willRetry(message, next: clock.now.advanced(by: wait).date)
            }
        }
        let now = clock.now.date
        do {
            switch result {
            case .delivered:
                try await store.delivered(rows ?? [head], notifier: notification.notifier, at: now)
            case .willRetry(let message, let next):
                try await store.failed(
                    [head], notifier: notification.notifier, error: message, at: now, nextAttempt: next,
                    refused: false)
            case .refused(let message):
                try await store.failed(
                    rows ?? [head], notifier: notification.notifier, error: message, at: now, nextAttempt: nil,
                    refused: true)
            case .dropped:
                break
            }
        } catch {
            if !Task.isCancelled {
                logger.warning("cannot record a delivery", metadata: ["error": "\(error)"])
                storeFailed.withLock { $0 = true }
            }
        }
        switch result {
        case .delivered, .dropped: break
        case .willRetry(let message, _), .refused(let message):
            metrics.notificationFailed(notifier: notification.notifier)
            logger.info(
                "notification not delivered",
                metadata: ["notifier": "\(notification.notifier)", "id": "\(notification.id)", "error": "\(message)"])
        }
        let attempt = Attempt(notification: notification, result: result)
        observer?(attempt)
        return attempt
    }
}
