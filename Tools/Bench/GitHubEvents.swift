import ArgumentParser
import GitHubSource
import Logging
import MonitorConcurrency
import MonitorCore
import MonitorJSON
import MonitorOptions

extension BenchCommand {
    /// `monitor-bench github FILE`: the GitHub source's decoding of one page of events, through its public poll,
    /// and a count of its events per type.
    struct GitHubEvents: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "github",
            abstract: "Decode a GitHub events page with the github source and count its events per type.",
            discussion: """
                Reads FILE, hands it to the github source as the answer of a repository's events request (one \
                page, no next page, no fill-in), counts the items per type and prints one JSON line: events, seconds (reading \
                and decoding, wall and CPU), eventsPerSecond and the count of each type.
                """)

        @Argument(help: "A GitHub events page (the answer of GET /repos/OWNER/NAME/events).")
        var file: String

        @Option(help: "Decode the page this many times (the time is for all of them, the counts for one).")
        var `repeat` = 1

        func run() async throws {
            let started = ContinuousClock.now
            let startedCPU = Document.cpuSeconds()
            let document = try Document.contents(of: file)
            var counts: [String: Int] = [:]
            for _ in 0..<max(1, self.repeat) { counts = try await Self.count(page: document) }
            let seconds = Document.seconds(since: started)
            let cpuSeconds = Document.cpuSeconds() - startedCPU
            let events = counts.values.reduce(0, +)
            let line = JSONValue.object([
                ("events", .integer(events)), ("bytes", .integer(document.count)),
                ("repeat", .integer(max(1, self.repeat))), ("seconds", .number(seconds)),
                ("cpuSeconds", .number(cpuSeconds)),
                ("eventsPerSecond", .number((Double(events * max(1, self.repeat)) / seconds).rounded())),
                ("types", .object(counts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.integer($0.value)) })),
            ])
            print(line.text)
        }

        /// The number of items of each event type after the github source polled a server answering `page`.
        static func count(page: [UInt8]) async throws -> [String: Int] {
            var logger = Logger(label: "monitor-bench")
            logger.logLevel = .error
            var options = FeedOptions.defaults(of: GitHubSource.options.map(\.spec))
            options.set("api", .string("http://bench.invalid"))
            options.set("repo", .string("bench/repo"))
            options.set("keep", .integer(300))
            // The page's reading is measured: no fill-in, which would ask this transport for pull requests and
            // commits and be answered with the page.
            options.set("details", .boolean(false))
            let http = FeedHTTP(
                transport: PageTransport(page: page), policy: HTTPPolicy(settings: Settings()),
                limiters: [AsyncSemaphore(limit: 2)], logger: logger)
            let context = PollContext(
                feed: "bench", options: options, http: http, values: SourceValues([:]),
                logger: logger, clock: WallClock(), concurrency: 2)
            var counts: [String: Int] = [:]
            try await GitHubSource(options: options).forEachUpdate(context) { update in
                if case .items(let items) = update {
                    for item in items { counts[item.groups.first ?? "?", default: 0] += 1 }
                }
            }
            return counts
        }
    }
}

/// An in-memory HTTP transport answering every request with one page of events.
struct PageTransport: HTTPTransport {
    /// The page.
    let page: [UInt8]

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: page)
    }
}
