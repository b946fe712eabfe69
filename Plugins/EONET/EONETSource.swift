import MonitorCore

/// The `eonet` source: NASA's Earth Observatory Natural Event Tracker — categories and their events.
///
/// A poll asks `GET {api}/categories` first, then the events of each selected category with
/// `GET {api}/events?category=ID&status=…&days=…`, at most `concurrency` at once, merged as they complete.
/// Each event becomes one item whose groups are its categories, so an event in two categories counts in
/// both and once in the total.
public struct EONETSource: FeedSource {
    public static let type = "eonet"
    public static let summary = "NASA EONET natural events (wildfires, storms, volcanoes…), counted per category"

    public static let options: [OptionSpec] = [
        OptionSpec("api", .url, default: .string("https://eonet.gsfc.nasa.gov/api/v3"), doc: "API root (v3)"),
        OptionSpec(
            "days", .integer(1...36500), default: .integer(360), doc: "How many prior days of events to ask for"),
        OptionSpec(
            "status", .choice(["open", "closed", "all"]), default: .string("all"),
            doc: "Which events: open, closed or all"),
        OptionSpec(
            "categories", .list(placeholder: "category ids"),
            doc: "Only these categories, e.g. [wildfires, volcanoes] (default: all)"),
        OptionSpec("limit", .integer(1...Int.max), doc: "At most this many events per category"),
        OptionSpec(
            "concurrency", .integer(1...256), default: .integer(2),
            doc: "Category downloads in flight (at most settings.concurrency)"),
    ]

    /// `monitor events` shows whether an event is open, its latest magnitude and its latest position.
    public static var detailColumns: [String] { ["status", "magnitude", "position"] }

    /// The summary splits each category's count into open and closed events.
    public static var breakdownDetail: String? { "status" }

    let options: FeedOptions

    public init(options: FeedOptions) {
        self.options = options
    }

    /// Each poll returns the whole window of events: what the server no longer lists is dropped.
    public var retention: ItemRetention { .replace }

    public func poll(_ context: PollContext) -> AsyncThrowingStream<SourceUpdate, any Error> {
        let poll = EONETPoll(options: options, context: context)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await poll.run { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
