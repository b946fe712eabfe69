import ArgumentParser
import EONETSource
import Foundation
import Logging
import MonitorConcurrency
import MonitorCore
import MonitorItems
import MonitorJSON
import MonitorOptions

extension BenchCommand {
    /// `monitor-bench decode FILE`: the EONET source's decoding of one events document, through its public
    /// poll, and a count of its events per category.
    struct Decode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode an EONET events document with the eonet source and count its events per category.",
            discussion: """
                Reads FILE, hands it to the eonet source as the answer of one events request, counts the items per \
                category and prints one JSON line: events, seconds and cpuSeconds (reading and decoding), eventsPerSecond and \
                the count of each category.
                """)

        @Argument(help: "An EONET v3 events document (the answer of GET /events).")
        var file: String

        @Option(help: "Decode the document this many times (the time is for all of them, the counts for one).")
        var `repeat` = 1

        func run() async throws {
            let started = ContinuousClock.now
            let startedCPU = Document.cpuSeconds()
            let document = try Document.contents(of: file)
            let size = document.count
            var counts: [String: Int] = [:]
            // The last decode's items are released after the time is taken, as Python's document is: both times are
            // reading, decoding and counting, neither freeing.
            var items: [[Item]] = []
            for _ in 0..<max(1, self.repeat) {
                items = []
                (counts, items) = try await Self.count(document: document)
            }
            let seconds = Document.seconds(since: started)
            let cpuSeconds = Document.cpuSeconds() - startedCPU
            withExtendedLifetime(items) {}
            let events = (counts[DocumentTransport.documentCategory] ?? 0) * max(1, self.repeat)
            let categories = DocumentTransport.categories.compactMap { category in
                counts[category].map { (key: category, value: JSONValue.integer($0)) }
            }
            let line = JSONValue.object([
                ("events", .integer(counts[DocumentTransport.documentCategory] ?? 0)), ("bytes", .integer(size)),
                ("repeat", .integer(max(1, self.repeat))), ("seconds", .number(seconds)),
                ("cpuSeconds", .number(cpuSeconds)),
                ("eventsPerSecond", .number((Double(events) / seconds).rounded())), ("categories", .object(categories)),
            ])
            print(line.text)
        }

        /// The number of items of each category after the eonet source polled a server holding `document`, and the
        /// items (so that the caller decides when they are released).
        static func count(document: [UInt8]) async throws -> (counts: [String: Int], items: [[Item]]) {
            var logger = Logger(label: "monitor-bench")
            logger.logLevel = .error
            var options = FeedOptions.defaults(of: EONETSource.options.map(\.spec))
            options.set("api", .string("http://bench.invalid/api/v3"))
            options.set("status", .string("all"))
            options.set("days", .integer(36_500))
            let settings = Settings()
            let http = FeedHTTP(
                transport: DocumentTransport(document: document), policy: HTTPPolicy(settings: settings),
                limiters: [AsyncSemaphore(limit: 2)], logger: logger)
            let context = PollContext(
                feed: "bench", options: options, http: http, values: SourceValues([:]),
                logger: logger, clock: WallClock(), concurrency: 2)
            // Only the document's category answers with events, so each event comes once: counted as it comes.
            var counts: [String: Int] = [:]
            var items: [[Item]] = []
            try await EONETSource(options: options).forEachUpdate(context) { update in
                switch update {
                case .items(let batch):
                    for item in batch {
                        for group in item.groups { counts[group, default: 0] += 1 }
                    }
                    items.append(batch)
                case .failure(let failure):
                    throw ValidationError("the eonet source could not decode the document: \(failure.message)")
                default:
                    break
                }
            }
            return (counts, items)
        }
    }
}
