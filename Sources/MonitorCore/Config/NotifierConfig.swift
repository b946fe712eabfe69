import MonitorOptions
import MonitorRules
import MonitorText

/// One validated notifier of the `notify:` list of `feeds.yaml`.
package struct NotifierConfig: Sendable {
    /// The unique name that notifications, `monitor status` and `monitor notify test NAME` use.
    package var name: String
    /// The notifier type, such as `webhook`.
    package var type: String
    /// Every option, the common ones included, with defaults filled in.
    package var options: FeedOptions

    /// The feeds it is told about; nil for every feed.
    var feeds: [String]? { options[Self.feeds] }

    /// The events it is told about.
    var events: Set<FeedNotification.Event> {
        Set(options[Self.on].compactMap(FeedNotification.Event.init(rawValue:)))
    }

    /// Whether it is told about `event` of `feed`.
    func wants(_ event: FeedNotification.Event, of feed: String) -> Bool {
        events.contains(event) && (feeds?.contains(feed) ?? true)
    }

    static let feeds = FeedOption<[String]?>(
        "feeds", .list(placeholder: "feed names"), doc: "Only these feeds (default: every feed)")
    static let on = FeedOption<[String]>(
        "on", .list(placeholder: "events"), default: ["new", "failed", "recovered"],
        doc: "The events notified: new, failed, recovered, stale, gap")

    static let maxPending = FeedOption<Int>(
        "max_pending", .integer(1...1_000_000), default: 1000,
        doc: "At most this many notifications wait for it (its receiver down); beyond it the oldest are dropped")
    static let maxAge = FeedOption<Duration>(
        "max_age", .duration(minimum: .seconds(60)), default: .seconds(7 * 86_400),
        doc: "A notification not delivered within this time is dropped")

    static let digest = FeedOption<Duration?>(
        "digest", .duration(minimum: .seconds(60)),
        doc: "Send at most one message per period, combining what it would have sent in it (e.g. 1h)")

    /// Its digest period; nil when it sends each notification as it comes.
    package var digestPeriod: Duration? { options[Self.digest] }

    /// A digest must come before its notifications are too old to deliver: `max_age` longer than `digest`.
    static func checkDigest(_ options: FeedOptions) -> [Diagnostic] {
        guard let period = options[digest], period >= options[maxAge] else { return [] }
        return [
            .error(
                "'max_age' (\(DurationFormat.string(options[maxAge]))) must be longer than 'digest' "
                    + "(\(DurationFormat.string(period))): a notification would be dropped before its digest is sent",
                at: options.location(of: digest.name))
        ]
    }

    static let rule = FeedOption<String?>(
        "where", .string(placeholder: "rule"),
        doc: "Send only the new items this rule matches (failed, recovered and stale are not filtered; docs/rules.md)")

    /// The notifier's rule, checked when the file was validated; nil for none.
    var rule: Rule? { options[Self.rule].flatMap { try? Rule($0, details: nil) } }

    /// How much of the outbox it may hold.
    package var bounds: OutboxBounds {
        OutboxBounds(count: options[Self.maxPending], age: options[Self.maxAge])
    }

    /// The options every notifier has, whatever its type.
    package static let commonSpecs: [OptionSpec] = [
        OptionSpec(
            "name", .string(placeholder: "name", format: FeedConfig.checkName), required: true,
            doc: "Unique name of the notifier, as `monitor status` and `monitor notify test NAME` show it"),
        OptionSpec("type", .string(placeholder: "type"), required: true, doc: "The notifier that delivers"),
        feeds.spec, on.spec, maxPending.spec, maxAge.spec, digest.spec, rule.spec,
    ]
}
