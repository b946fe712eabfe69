import ArgumentParser
import Foundation
import MonitorCore
import MonitorItems
import MonitorJSON
import MonitorPostgres
import MonitorSQLite

extension BenchCommand {
    /// `monitor-bench commit`: the state write of a poll, in rows and time, on a fresh state file.
    struct StateWrite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "commit",
            abstract: "Measure the state write of a poll: a first poll, the same items again, then new items.",
            discussion: """
                On a fresh state in a temporary directory, commits ITEMS items (a first poll), the same items again \
                (an unchanged poll) and then, RUNS times, NEW newer items with the oldest NEW dropped (a poll that \
                finds NEW events, the feed keeping its newest ITEMS), as the poll runner commits them. Prints one \
                JSON line: the rows each commit wrote (by table) and the median time of each kind of commit. With \
                --state postgres://…, the same in that PostgreSQL database, under a feed name of its own.
                """)

        @Option(help: "Items in the feed.")
        var items = 5000

        @Option(help: "New items in each later poll.")
        var new = 10

        @Option(help: "Polls of each kind that are timed.")
        var runs = 5

        @Option(
            help: ArgumentHelp("A PostgreSQL database to measure instead of a fresh SQLite file.", valueName: "url"))
        var state: String?

        func validate() throws {
            guard items >= 1, new >= 0, runs >= 1 else {
                throw ValidationError("--items and --runs must be at least 1, --new at least 0")
            }
        }

        func run() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "monitor-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let store: any StateStoring
            var feed = "bench"
            if let state {
                store = try await PostgresStateStore.open(try PostgresURL(parsing: state))
                feed = "bench-\(UUID().uuidString.prefix(8))"
            } else {
                store = try SQLiteStateStore(directory: directory)
            }
            var newest = items
            let (first, firstTime) = try await Self.timed {
                try await store.commit(commit(upTo: newest), feed: feed)
            }
            var same: [(CommitStatistics, Double)] = []
            var fresh: [(CommitStatistics, Double)] = []
            for _ in 0..<runs {
                let unchanged = newest
                same.append(try await Self.timed { try await store.commit(commit(upTo: unchanged), feed: feed) })
                newest += new
                let latest = newest
                fresh.append(try await Self.timed { try await store.commit(commit(upTo: latest), feed: feed) })
            }
            let line = JSONValue.object([
                ("backend", .string(state == nil ? "sqlite" : "postgres")), ("items", .integer(items)),
                ("new", .integer(new)), ("runs", .integer(runs)),
                ("first", Self.json(first, seconds: firstTime)),
                ("unchanged", Self.json(same[0].0, seconds: Self.median(same.map(\.1)))),
                ("newItems", Self.json(fresh[0].0, seconds: Self.median(fresh.map(\.1)))),
            ])
            print(line.text)
        }

        /// The feed's newest `items` items when the newest is number `newest`, newest first.
        func commit(upTo newest: Int) -> PollCommit {
            let list = (0..<items).map { offset -> Item in
                let number = newest - offset
                return Item(
                    id: "\(number)", title: "someone pushed 1 commit to standin/repo (\(number))",
                    date: Date(timeIntervalSince1970: 1_700_000_000 + Double(number) * 60),
                    groups: [number % 4 == 0 ? "WatchEvent" : "PushEvent"],
                    url: "https://github.com/standin/repo/commit/\(number)",
                    details: [Detail("actor", "user\(number % 97)"), Detail("repo", "standin/repo")])
            }
            var record = FeedRecord(name: "bench", type: "github")
            record.status = "ok"
            record.itemCount = list.count
            return PollCommit(
                record: record, items: list, firstSeen: Date(),
                groups: [
                    ItemGroup(id: "PushEvent", title: "PushEvent"), ItemGroup(id: "WatchEvent", title: "WatchEvent"),
                ],
                validators: [
                    ValidatorKey(url: "https://api.github.com/repos/standin/repo/events", credential: ""):
                        Validators(etag: "W/\"\(newest)\"", lastModified: nil)
                ],
                values: [:])
        }

        static func timed(_ work: () async throws -> CommitStatistics) async throws -> (CommitStatistics, Double) {
            let started = ContinuousClock.now
            let statistics = try await work()
            return (statistics, Document.seconds(since: started))
        }

        static func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }

        static func json(_ statistics: CommitStatistics, seconds: Double) -> JSONValue {
            .object([
                ("rows", .integer(statistics.rows)), ("itemsInserted", .integer(statistics.itemsInserted)),
                ("itemsUpdated", .integer(statistics.itemsUpdated)),
                ("itemsDeleted", .integer(statistics.itemsDeleted)),
                ("memberRows", .integer(statistics.memberRows)), ("groupRows", .integer(statistics.groupRows)),
                ("validatorRows", .integer(statistics.validatorRows)), ("valueRows", .integer(statistics.valueRows)),
                ("recordRows", .integer(statistics.recordRows)), ("seconds", .number(seconds)),
            ])
        }
    }
}
