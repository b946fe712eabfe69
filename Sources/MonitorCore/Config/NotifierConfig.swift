/// One validated notifier of the `notify:` list of `feeds.yaml`.
public struct NotifierConfig: Sendable {
    /// The unique name that notifications, `monitor status` and `monitor notify test NAME` use.
    public var name: String
    /// The notifier type, such as `webhook`.
    public var type: String
    /// Every option, the common ones included, with defaults filled in.
    public var options: FeedOptions
    /// Where the notifier's mapping starts.
    public var location: SourceLocation

    /// A notifier.
    public init(name: String, type: String, options: FeedOptions, location: SourceLocation) {
        self.name = name
        self.type = type
        self.options = options
        self.location = location
    }

    /// The feeds it is told about; nil for every feed.
    public var feeds: [String]? { options[Self.feeds] }

    /// The events it is told about.
    public var events: Set<FeedNotification.Event> {
        Set(options[Self.on].compactMap(FeedNotification.Event.init(rawValue:)))
    }

    /// Whether it is told about `event` of `feed`.
    public func wants(_ event: FeedNotification.Event, of feed: String) -> Bool {
        events.contains(event) && (feeds?.contains(feed) ?? true)
    }

    /// `feeds`: only these feeds.
    public static let feeds = FeedOption<[String]?>(
        "feeds", .list(placeholder: "feed names"), doc: "Only these feeds (default: every feed)")
    /// `on`: the events notified.
    public static let on = FeedOption<[String]>(
        "on", .list(placeholder: "events"), default: ["new", "failed", "recovered"],
        doc: "The events notified: new, failed, recovered, stale")

    /// The options every notifier has, whatever its type.
    public static let commonSpecs: [OptionSpec] = [
        OptionSpec(
            "name", .string(placeholder: "name", format: FeedConfig.checkName), required: true,
            doc: "Unique name of the notifier, as `monitor status` and `monitor notify test NAME` show it"),
        OptionSpec("type", .string(placeholder: "type"), required: true, doc: "The notifier that delivers"),
        feeds.spec, on.spec,
    ]
}
