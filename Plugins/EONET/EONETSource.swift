import MonitorCore

/// The `eonet` source: NASA's Earth Observatory Natural Event Tracker — categories and their events.
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

    let options: FeedOptions

    public init(options: FeedOptions) {
        self.options = options
    }

    public var retention: ItemRetention { .replace }

    public func poll(_ context: PollContext) -> AsyncThrowingStream<SourceUpdate, any Error> {
        AsyncThrowingStream { $0.finish(throwing: SourceError("the eonet source is not built yet")) }
    }
}
