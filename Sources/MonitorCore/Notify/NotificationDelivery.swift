import Foundation
import Logging
import Synchronization

/// Delivers the outbox: each notification through its notifier, removed from the state once delivered, tried
/// again with backoff when a later attempt may succeed, kept a while and not tried again when its receiver
/// refused it.
///
/// Each notifier delivers its notifications one after another, in the order the polls wrote them, the next only
/// once the one before is delivered (or refused); notifiers deliver concurrently, so one that hangs or fails
/// delays no other, and no delivery ever fails a poll.
public final class NotificationDelivery: Sendable {
    /// How failed deliveries are spaced: the one ``MonitorCore/Backoff``, from 5 s to 15 minutes by default.
    public typealias Backoff = MonitorCore.Backoff

    /// What one attempt came to.
    public struct Attempt: Sendable, Hashable {
        /// How it ended.
        public enum Result: Sendable, Hashable {
            /// Delivered: the receiver's answer.
            case delivered(String)
            /// Failed; tried again from `next`.
            case willRetry(String, next: Date)
            /// Refused by the receiver: not tried again.
            case refused(String)
            /// Not attempted: an earlier notification to the same notifier was not delivered (it goes first).
            case notAttempted(String)
        }

        /// The notification.
        public var notification: FeedNotification
        /// How it ended.
        public var result: Result
    }

    private let store: any StateStoring
    private let notifiers: Mutex<[String: any Notifier]>
    private let clock: PollClock
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

    /// A delivery of `store`'s outbox through `notifiers` (by name); `observer` hears of every attempt, `metrics`
    /// counts the failed ones and how many each notifier has pending.
    public init(
        store: any StateStoring, notifiers: [String: any Notifier], clock: PollClock = .system,
        backoff: Backoff = Backoff(),
        logger: Logger, observer: (@Sendable (Attempt) -> Void)? = nil, metrics: MonitorMetrics = .disabled
    ) {
        self.store = store
        self.notifiers = Mutex(notifiers)
        self.clock = clock
        self.backoff = backoff
        self.logger = logger
        self.observer = observer
        self.metrics = metrics
    }

    /// Replaces the notifiers (the feeds file was reloaded); notifications of a notifier no longer configured stay
    /// in the outbox.
    public func setNotifiers(_ notifiers: [String: any Notifier]) {
        self.notifiers.withLock { $0 = notifiers }
    }

    /// Makes one attempt at each notification of the outbox whose notifier is configured, except those of
    /// `excluding`, in the order the polls wrote them: a notifier's notifications go one after another, from its
    /// oldest when that one is due at the clock's time (at once with `all`); after one that is not delivered the
    /// rest of that notifier's wait (`notAttempted`), so that they keep their order and a receiver that is down
    /// is not asked again and again. Notifiers deliver concurrently. The notifiers of `holding` (whose oldest
    /// notification was just not delivered) attempt nothing. Returns the attempts in outbox order.
    @discardableResult
    public func deliverDue(all: Bool = false, excluding: Set<String> = [], holding: Set<String> = []) async
        -> [Attempt]
    {
        let now = clock.now()
        let entries: [OutboxEntry]
        do {
            try await store.dropExpiredNotifications(now: now)
            entries = try await store.outbox()
        } catch {
            logger.warning("cannot read the notifications outbox", metadata: ["error": "\(error)"])
            storeFailed.withLock { $0 = true }
            return []
        }
        let notifiers = self.notifiers.withLock { $0 }
        var queues: [String: [OutboxEntry]] = [:]
        for entry in entries where notifiers[entry.notification.notifier] != nil {
            guard !excluding.contains(entry.notification.id) else { continue }
            queues[entry.notification.notifier, default: []].append(entry)
        }
        var held: [Attempt] = []
        for name in holding {
            let reason = "an earlier notification to \(name) was not delivered; it goes first"
            held += (queues.removeValue(forKey: name) ?? []).map {
                Attempt(notification: $0.notification, result: .notAttempted(reason))
            }
        }
        let attempts = await withTaskGroup(of: [Attempt].self) { group in
            for (name, queue) in queues {
                guard let notifier = notifiers[name], let head = queue.first,
                    all || (head.nextAttempt ?? .distantPast) <= now
                else { continue }
                group.addTask {
                    var attempts: [Attempt] = []
                    for (index, entry) in queue.enumerated() {
                        guard !Task.isCancelled, let attempt = await self.attempt(entry, with: notifier) else { break }
                        attempts.append(attempt)
                        if case .willRetry = attempt.result {
                            let reason = "an earlier notification to \(name) was not delivered; it goes first"
                            attempts += queue[(index + 1)...].map {
                                Attempt(notification: $0.notification, result: .notAttempted(reason))
                            }
                            break
                        }
                    }
                    return attempts
                }
            }
            var all = held
            for await attempts in group { all += attempts }
            return all
        }
        recordPending(entries: entries, attempts: attempts, notifiers: Set(notifiers.keys))
        let order = Dictionary(entries.enumerated().map { ($1.notification.id, $0) }, uniquingKeysWith: { $1 })
        return attempts.sorted { (order[$0.notification.id] ?? 0) < (order[$1.notification.id] ?? 0) }
    }

    /// Sets each configured notifier's pending gauge: what the outbox held for it, less what `attempts` delivered or
    /// its receiver refused.
    private func recordPending(entries: [OutboxEntry], attempts: [Attempt], notifiers: Set<String>) {
        var pending = Dictionary(uniqueKeysWithValues: notifiers.map { ($0, 0) })
        for entry in entries where pending[entry.notification.notifier] != nil {
            pending[entry.notification.notifier, default: 0] += 1
        }
        for attempt in attempts {
            switch attempt.result {
            case .delivered, .refused: pending[attempt.notification.notifier, default: 1] -= 1
            case .willRetry, .notAttempted: break
            }
        }
        for (notifier, count) in pending { metrics.notificationsPending(notifier: notifier, count: max(count, 0)) }
    }

    /// Delivers until cancelled: everything in the outbox at once, then what polls commit (woken by `wakeup`) and
    /// what is due again after a failure. When the state could not be read or an attempt not recorded, it tries
    /// again after `backoff.base` (or at a wakeup), so that a passing store error never stalls the delivery.
    public func run(wakeup: Wakeup) async {
        var all = true
        while !Task.isCancelled {
            await deliverDue(all: all)
            all = false
            // The next attempt due: that of the oldest notification of each notifier (the others wait for it).
            let configured = notifiers.withLock { Set($0.keys) }
            var heads: [String: OutboxEntry] = [:]
            var failed = storeFailed.withLock { failed in
                defer { failed = false }
                return failed
            }
            do {
                for entry in try await store.outbox() where configured.contains(entry.notification.notifier) {
                    if heads[entry.notification.notifier] == nil { heads[entry.notification.notifier] = entry }
                }
            } catch {
                logger.warning("cannot read the notifications outbox", metadata: ["error": "\(error)"])
                failed = true
            }
            var wait = heads.values.compactMap(\.nextAttempt).min().map { max($0.timeIntervalSince(clock.now()), 0) }
            if failed { wait = backoff.base.seconds }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await wakeup.wait() }
                if let wait {
                    group.addTask { try? await self.clock.sleep(.milliseconds(Int64(wait * 1000) + 1)) }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// One attempt at `entry`, recorded in the state; nil when cancelled, or when another instance sharing the outbox
    /// claimed it (nothing is recorded).
    private func attempt(_ entry: OutboxEntry, with notifier: any Notifier) async -> Attempt? {
        let notification = entry.notification
        if let shared = store as? any OutboxClaiming {
            // Another instance delivers it (and the notifier's later ones, in order), or it was delivered already.
            do {
                guard
                    try await shared.claimNotification(
                        notification.id, owner: owner, lease: Self.claimLease, now: clock.now())
                else { return nil }
            } catch {
                logger.warning("cannot claim a notification", metadata: ["error": "\(error)"])
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
                result = .willRetry(message, next: clock.now().addingTimeInterval(wait.seconds))
            }
        }
        let now = clock.now()
        do {
            switch result {
            case .delivered:
                try await store.delivered(notification.id, notifier: notification.notifier, at: now)
            case .willRetry(let message, let next):
                try await store.failed(
                    notification.id, notifier: notification.notifier, error: message, at: now, nextAttempt: next,
                    refused: false)
            case .refused(let message):
                try await store.failed(
                    notification.id, notifier: notification.notifier, error: message, at: now, nextAttempt: nil,
                    refused: true)
            case .notAttempted:
                break
            }
        } catch {
            logger.warning("cannot record a delivery", metadata: ["error": "\(error)"])
            storeFailed.withLock { $0 = true }
        }
        switch result {
        case .delivered, .notAttempted: break
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
