import ArgumentParser
import Foundation
import MonitorCore
import MonitorJSON

extension MonitorCommand {
    /// `monitor status`: each feed's last poll, status, last error and item count, offline.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract:
                "Show each feed's last poll, status, last error and item count, and each notifier's outbox (offline).",
            discussion: """
                The feeds of the feeds file come first, in its order; a feed stored but no longer in it follows, its \
                status `not in the feeds file` (`monitor forget NAME` removes it). Without a valid feeds file, every \
                stored feed is listed as it is.

                For each notifier of the feeds file: where it delivers (a webhook's URL masked), how many notifications \
                wait to be delivered, how many its receiver refused (kept 7 days), when it last delivered and its last \
                error; for a notifier with digest:, how many notifications it collected and when its next digest is \
                due. A feeds file that is not valid is said on standard error: a running monitor rejected it and keeps \
                the last valid one. With --format json, the notifiers follow the feeds in the array, each with a \
                "notifier" key. \
                With a PostgreSQL state shared by several instances, each feed leased now says by which instance \
                (hostname:pid:random) and until when ("lease" in JSON, null when none holds it). A PostgreSQL state \
                that cannot be reached is said in one line (`state unreachable: …`; in JSON, {"state": "unreachable", \
                "error": …}), with exit code 1.
                """
        )

        @OptionGroup var options: ConfigOptions
        @OptionGroup var stateOptions: StateOptions

        @Option(help: "Output format: text or json.")
        var format: OutputFormat = .text

        func run() async throws {
            let store = try await stateOptions.openForReading(unreachable: unreachable)
            do {
                try await show(store)
            } catch let error as StateError where error.isUnreachable {
                throw unreachable(error)
            }
        }

        /// Says that the state cannot be reached, in one line (a JSON object with `--format json`), rather than as an
        /// error opening it or a failure of each feed; exits 1.
        private func unreachable(_ error: StateError) -> ExitCode {
            switch format {
            case .json: Console.out(StatusListing.json(state: error).text + "\n")
            case .text: Console.out(StatusListing.unreachableLine(error) + "\n")
            }
            return ExitStatus.failure
        }

        /// Shows what `store` holds (nil: nothing stored yet).
        private func show(_ store: (any StateStoring)?) async throws {
            let stored = try await store?.records() ?? []
            // The feeds of the feeds file first, in its order (also those never polled), then any others stored.
            let loaded = ConfigLoader().load(path: options.path)
            if let problem = loaded.problem, FileManager.default.fileExists(atPath: options.path) {
                // A broken feeds file hides its feeds and notifiers: say so rather than list less without a word. A
                // run checks the same file every second: it rejected this one and runs the last valid one.
                let errors = loaded.diagnostics.count
                Console.error(
                    "monitor: warning: \(problem): \(options.path) has \(errors) error\(errors == 1 ? "" : "s") "
                        + "(`monitor validate` shows them); a running monitor keeps the last valid one; showing only "
                        + "what the state holds\n")
            }
            var records: [FeedRecord] = []
            for feed in loaded.config?.feeds ?? [] {
                records.append(stored.first { $0.name == feed.name } ?? FeedRecord(name: feed.name, type: feed.type))
            }
            // A feed stored but no longer in a feeds file that was read is marked so, its old error and hold left out.
            let removed = stored.filter { record in !records.contains { $0.name == record.name } }.map { record in
                guard loaded.config != nil else { return record }
                var marked = FeedRecord(name: record.name, type: record.type)
                marked.status = "not_in_the_feeds_file"
                (marked.lastPoll, marked.itemCount) = (record.lastPoll, record.itemCount)
                return marked
            }
            records += removed
            // The notifiers of the feeds file, in its order, then any others with notifications stored.
            let configured = loaded.config?.notifiers ?? []
            let targets = NotifierSet.targets(configured)
            let statuses = try await store?.notifierStatuses() ?? []
            var notifiers: [NotifierLine] = []
            for config in configured {
                // A digest is due one period after the oldest notification it collected.
                let period = config.digestPeriod
                let head = period == nil ? nil : try await store?.nextNotification(of: config.name)
                let status = statuses.first { $0.name == config.name } ?? NotifierStatus(name: config.name)
                notifiers.append(
                    NotifierLine(
                        status: status, type: config.type, target: targets[config.name], digest: period,
                        nextDigest: period.flatMap { period in
                            head?.digestDue(
                                every: period, full: status.pending >= config.bounds.count,
                                lastDelivered: status.lastDelivered)
                        }))
            }
            notifiers += statuses.filter { status in !configured.contains { $0.name == status.name } }.map {
                NotifierLine(status: $0, type: nil, target: nil)
            }
            // On a shared schedule (PostgreSQL): which instance holds which feed.
            let leasing = store as? any FeedLeasing
            let slots = try await leasing?.slots() ?? [:]
            let now = Date()
            switch format {
            case .json:
                let feeds =
                    leasing == nil
                    ? records.map(StatusListing.json)
                    : records.map { StatusListing.json($0, slot: slots[$0.name], now: now) }
                Console.out(JSONValue.array(feeds + notifiers.map(StatusListing.json)).text + "\n")
            case .text:
                let hint =
                    removed.isEmpty || loaded.config == nil
                    ? "" : "`monitor forget NAME` removes the stored data of a feed not in the feeds file\n"
                Console.out(
                    StatusListing.text(records, now: now, slots: slots) + hint + StatusListing.text(notifiers, now: now)
                )
            }
        }
    }
}
