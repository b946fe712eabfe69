import MonitorCore
import Synchronization

/// `monitor run --once`: the notifications earlier runs left undelivered first, then every feed polled once (the
/// scheduler's ``FeedScheduler/Policy/once`` policy), then one attempt at the notifications not attempted yet; what
/// is left undelivered is said on standard error and kept for the next run.
extension MonitorService {
    /// Whether a poll failed or partly failed.
    package var failed: Bool { failedPolls.withLock { $0 } }

    func pollOnce(
        scheduler: FeedScheduler, events: AsyncStream<PollEvent>, continuation: AsyncStream<PollEvent>.Continuation,
        display: any RunView, delivery: NotificationDelivery, shutdown: () async -> Void,
        _ shutdownNotifiers: () async -> Void
    ) async {
        let notifying = !initial.notifiers.isEmpty
        // Before the polls write anything new.
        var attempts = notifying ? await delivery.deliverDue(all: true) : []
        await scheduler.apply(entries(of: initial))
        async let polled: Void = {
            await scheduler.run()
            continuation.finish()
        }()
        for await event in events {
            switch event {
            // A notification the polls' commits dropped is said with the others, at the end.
            case .delivery(let dropped): attempts.append(dropped)
            case .finished(let report) where report.isFailure: failedPolls.withLock { $0 = true }
            default: break
            }
            display.show(event)
        }
        display.finish()
        await polled
        await shutdown()
        // Not after a signal: a notifier whose older notification was just not delivered keeps the new ones waiting.
        if notifying, !Task.isCancelled {
            attempts += await delivery.deliverDue(all: true, holding: Self.notDelivered(attempts))
        }
        await shutdownNotifiers()
        await sayUndelivered(attempts)
    }

    /// Says each notification of `attempts` not delivered once, with how many of its notifier wait behind it.
    private func sayUndelivered(_ attempts: [NotificationDelivery.Attempt]) async {
        var waiting: [String: Int] = [:]
        for notifier in Self.notDelivered(attempts) {
            waiting[notifier] = try? await options.store.pendingCount(of: notifier)
        }
        let dropped = Set(
            attempts.compactMap { attempt -> String? in
                if case .dropped = attempt.result { attempt.notification.id } else { nil }
            })
        for attempt in attempts {
            // One not delivered and then dropped by a poll's commit is said by its drop.
            if case .willRetry = attempt.result, dropped.contains(attempt.notification.id) { continue }
            // A digest holds every notification its notifier had when it was made: none of those waits behind it.
            let held = attempt.notification.event == .digest ? attempt.notification.total : 1
            let behind = waiting[attempt.notification.notifier].map { $0 - held } ?? 0
            if let line = NotifierSet.undeliveredLine(attempt, waiting: behind) { options.errors(line) }
        }
    }

    /// The notifiers of `attempts` whose notification was not delivered (and stays their oldest).
    private static func notDelivered(_ attempts: [NotificationDelivery.Attempt]) -> Set<String> {
        Set(
            attempts.compactMap { attempt -> String? in
                if case .willRetry = attempt.result { attempt.notification.notifier } else { nil }
            })
    }
}
