import ArgumentParser
import Foundation
import Logging
import MonitorCore
import MonitorItems
import MonitorJSON
import MonitorPostgres
import MonitorSQLite
import Samples

extension BenchCommand {
    /// `monitor-bench outbox`: what a poll's commit costs, with the delivery round it wakes, while a receiver that is
    /// down leaves notifications pending.
    struct OutboxCost: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "outbox",
            abstract: "Measure a poll's commit and the delivery round it wakes with PENDING notifications waiting.",
            discussion: """
                On a fresh state in a temporary directory, writes PENDING notifications of one notifier whose \
                receiver is down (its oldest was tried and waits for its next attempt), then RUNS times commits a \
                poll with one new notification and makes the round of the delivery that the commit wakes, as \
                `monitor run` does. Prints one JSON line: the median time of the commit, of the round, and of both. \
                With --state postgres://…, the same in that PostgreSQL database.
                """)

        @Option(help: "Notifications waiting before the timed polls.")
        var pending = 20_000

        @Option(help: "Polls timed.")
        var runs = 20

        @Option(help: "The notifier's max_pending (none: unbounded, as before the bounds); its max_age is 7d.")
        var maxPending: Int?

        @Option(
            help: ArgumentHelp("A PostgreSQL database to measure instead of a fresh SQLite file.", valueName: "url"))
        var state: String?

        func validate() throws {
            guard pending >= 0, runs >= 1 else {
                throw ValidationError("--pending must be at least 0, --runs at least 1")
            }
        }

        func run() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "monitor-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let store: any StateStoring
            let notifier = "bench-\(UUID().uuidString.prefix(8))"
            if let state {
                store = try await PostgresStateStore.open(try PostgresURL(parsing: state))
            } else {
                store = try SQLiteStateStore(directory: directory)
            }
            let bounds = maxPending.map { [notifier: OutboxBounds(count: $0, age: .seconds(7 * 86_400))] } ?? [:]
            var written = 0
            while written < pending {
                let batch = min(1000, pending - written)
                try await store.commit(
                    commit((written..<written + batch).map { "n\($0)" }, notifier: notifier, bounds: bounds),
                    feed: notifier)
                written += batch
            }
            // The receiver is down: the oldest is tried once and waits; the clock stands still, so it stays waiting.
            let now = Date()
            let delivery = NotificationDelivery(
                store: store, notifiers: [notifier: DownNotifier()], bounds: bounds,
                clock: FrozenClock(at: now, random: 0),
                logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
            await delivery.deliverDue(all: true)
            var commits: [Double] = []
            var rounds: [Double] = []
            var both: [Double] = []
            for run in 0..<runs {
                let started = ContinuousClock.now
                try await store.commit(commit(["p\(run)"], notifier: notifier, bounds: bounds), feed: notifier)
                let committed = ContinuousClock.now
                await delivery.deliverDue()
                let ended = ContinuousClock.now
                commits.append((committed - started).seconds)
                rounds.append((ended - committed).seconds)
                both.append((ended - started).seconds)
            }
            let line = JSONValue.object([
                ("backend", .string(state == nil ? "sqlite" : "postgres")), ("pending", .integer(pending)),
                ("maxPending", maxPending.map(JSONValue.integer) ?? .null), ("runs", .integer(runs)),
                ("commitSeconds", .number(StateWrite.median(commits))),
                ("roundSeconds", .number(StateWrite.median(rounds))), ("seconds", .number(StateWrite.median(both))),
            ])
            print(line.text)
        }

        /// A poll's commit with one `new` notification of `notifier` for each of `ids`, under `bounds`.
        func commit(_ ids: [String], notifier: String, bounds: [String: OutboxBounds]) -> PollCommit {
            let at = Date()
            var record = FeedRecord(name: notifier, type: "github")
            record.status = "ok"
            record.lastPoll = at
            let items = (0..<3).map { number in
                Item(
                    id: "\(number)", title: "someone pushed 1 commit to standin/repo (\(number))", date: at,
                    groups: ["PushEvent"], url: "https://github.com/standin/repo/commit/\(number)",
                    details: [Detail("actor", "user\(number)"), Detail("repo", "standin/repo")])
            }
            return PollCommit(
                record: record, items: nil, firstSeen: at, groups: nil, validators: [:], values: [:],
                notifications: ids.map {
                    FeedNotification(
                        id: "\(notifier)-\($0)", notifier: notifier, feed: notifier, type: "github", event: .new,
                        at: at, total: items.count, items: items)
                }, bounds: bounds)
        }
    }
}
