import MonitorOptions
import MonitorRules
import MonitorText

/// A validated `feeds.yaml`: the global settings, the feeds and the notifiers.
package struct MonitorConfig: Sendable {
    /// The `settings:` section, with defaults for what is absent.
    package var settings: Settings
    /// The feeds, in file order.
    package var feeds: [FeedConfig]
    /// The `notify:` list, in file order.
    package var notifiers: [NotifierConfig] = []
    /// Each feed's source, by feed name.
    package var sources: [String: any FeedSource]
}

/// The `settings:` section of `feeds.yaml`.
package struct Settings: Sendable, Equatable {
    /// HTTP requests in flight across all feeds.
    package var concurrency: Int
    /// The poll interval of a feed that sets none.
    package var interval: Duration
    /// The time limit of one HTTP request.
    package var timeout: Duration
    /// The largest response body accepted, in bytes.
    package var maxBody: Int
    /// How many times a transient failure is retried.
    var retries: Int

    static let concurrency = FeedOption<Int>(
        "concurrency", .integer(1...256), default: 4, doc: "HTTP requests in flight across all feeds")
    static let interval = FeedOption<Duration>(
        "interval", .duration(), default: .seconds(15 * 60), doc: "Poll interval of a feed that sets none")
    static let timeout = FeedOption<Duration>(
        "timeout", .duration(), default: .seconds(30), doc: "Time limit of one HTTP request")
    static let maxBody = FeedOption<Int>(
        "max_body", .byteSize, default: 32 << 20, doc: "Largest response body accepted; a larger one fails its request")
    static let retries = FeedOption<Int>(
        "retries", .integer(0...10), default: 2,
        doc: "Retries of a transient failure (connection error, timeout, 5xx, 429)")

    /// The declarations of the settings, which `feeds.yaml` is validated against and `monitor sources` lists.
    package static let specs: [OptionSpec] = [
        concurrency.spec, interval.spec, timeout.spec, maxBody.spec, retries.spec,
    ]

    /// The settings from validated options.
    init(_ options: FeedOptions) {
        concurrency = options[Self.concurrency]
        interval = options[Self.interval]
        timeout = options[Self.timeout]
        maxBody = options[Self.maxBody]
        retries = options[Self.retries]
    }

    /// The defaults.
    package init() { self.init(FeedOptions.defaults(of: Self.specs)) }
}

/// One validated feed of `feeds.yaml`.
package struct FeedConfig: Sendable {
    /// The unique name that output and `monitor events NAME` use.
    package var name: String
    /// The source type, such as `github`.
    package var type: String
    /// Every option, the common ones included, with defaults filled in.
    package var options: FeedOptions

    static let interval = FeedOption<Duration?>(
        "interval", .duration(), doc: "Poll interval (default: settings.interval)")
    static let concurrency = FeedOption<Int?>(
        "concurrency", .integer(1...256), doc: "HTTP requests of this feed in flight (at most settings.concurrency)")

    static let rule = FeedOption<String?>(
        "where", .string(placeholder: "rule"),
        doc: "Keep only the items this rule matches; the others are not stored, counted or notified (docs/rules.md)")

    /// The feed's poll interval: its own, or `default` (`settings.interval`) when it sets none.
    package func interval(default: Duration) -> Duration { options[Self.interval] ?? `default` }

    /// The feed's rule, checked when the file was validated; nil for none.
    var rule: Rule? { options[Self.rule].flatMap { try? Rule($0, details: nil) } }

    /// The options every feed has, whatever its type.
    package static let commonSpecs: [OptionSpec] = [
        OptionSpec(
            "name", .string(placeholder: "name", format: FeedConfig.checkName), required: true,
            doc: "Unique name of the feed, as output and `monitor events NAME` show it"),
        OptionSpec("type", .string(placeholder: "type"), required: true, doc: "The source that polls the feed"),
        interval.spec, concurrency.spec,
        OptionSpec(
            "expect_update_within", .duration(),
            doc: "Show the feed as stale when it has had no new item for this long (`monitor run`)"),
        rule.spec,
    ]

    /// Checks a feed name: letters, digits, `.`, `_` and `-`, starting with a letter or digit.
    @Sendable static func checkName(_ name: String) -> String? {
        guard let first = name.first, first.isASCII, first.isLetter || first.isNumber,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else {
            return "a feed name uses letters, digits, '.', '_' and '-', and starts with a letter or digit"
        }
        return name.count <= 64 ? nil : "a feed name has at most 64 characters"
    }
}

extension FeedOptions {
    /// Options holding the defaults of `specs`.
    package static func defaults(of specs: [OptionSpec]) -> FeedOptions {
        FeedOptions(defaults: Dictionary(specs.compactMap { spec in spec.defaultValue.map { (spec.name, $0) } }) { $1 })
    }
}
