import MonitorOptions
import Testing

@testable import MonitorApp
@testable import MonitorCore

/// A source declared only for this test, so the listing's layout is checked against known declarations.
private struct SampleSource: FeedSource {
    static let type = "sample"
    static let summary = "A sample source"
    static let options: [any OptionDeclaration] = [
        FeedOption<String?>("path", .string(placeholder: "path"), required: true, doc: "Where to look"),
        FeedOption<Int>("depth", .integer(1...9), default: 3, doc: "How deep"),
        FeedOption<String>("secret", .string(), default: "s3cr3t", secret: true, doc: "Hidden"),
    ]

    init(options: FeedOptions) {}

    var retention: ItemRetention { .replace }

    func poll(_ context: PollContext, _ found: Findings) async throws {}
}

@Suite("monitor sources")
struct SourcesListingTests {
    @Test("lists every source's options, then the common options and the settings, from the declarations")
    func listing() {
        let output = SourcesListing.render([SampleSource.self])
        #expect(
            output.hasPrefix(
                """
                Feed types, chosen with `type:` in feeds.yaml:

                sample: A sample source
                  path    path         required          Where to look
                  depth   integer 1…9  default 3         How deep
                  secret  text         default (hidden)  Hidden

                Options of every feed:
                """))
        #expect(!output.contains("s3cr3t"))
        #expect(
            output.contains("  concurrency  integer 1…256  default 4      HTTP requests in flight across all feeds\n"))
    }

    @Test("the options of every notifier, the outbox bounds with their defaults among them")
    func notifierOptions() {
        let output = SourcesListing.render([], notifiers: Registry.notifiers)
        let common = output.split(separator: "\nOptions of every notifier:\n").last.map(String.init)
        #expect(
            common == """
                  name         name                required                          Unique name of the notifier, as `monitor status` and `monitor notify test NAME` show it
                  type         type                required                          The notifier that delivers
                  feeds        list of feed names  optional                          Only these feeds (default: every feed)
                  on           list of events      default [new, failed, recovered]  The events notified: new, failed, recovered, stale, gap
                  max_pending  integer 1…1000000   default 1000                      At most this many notifications wait for it (its receiver down); beyond it the oldest are dropped
                  max_age      duration            default 7d                        A notification not delivered within this time is dropped
                  digest       duration            optional                          Send at most one message per period, combining what it would have sent in it (e.g. 1h)
                  where        rule                optional                          Send only the new items this rule matches (failed, recovered and stale are not filtered; docs/rules.md)

                Durations are written 90s, 15m, 1h; any value may use ${VAR}, ${VAR:-default} or ${VAR:?message}.

                """)
    }

    @Test("every registered source and every option of each appears")
    func everything() {
        let output = SourcesListing.render(Registry.sources)
        for source in Registry.sources {
            #expect(output.contains("\n\(source.type): \(source.summary)\n"))
            for option in source.options.map(\.spec) {
                #expect(output.contains("  \(option.name) "), "\(source.type).\(option.name)")
                #expect(output.contains(option.doc), "\(source.type).\(option.name)")
            }
        }
    }

    @Test("no source redeclares a common option with another type, and option names are unique")
    func declarations() {
        for source in Registry.sources {
            let names = ConfigValidator.specs(of: source).map(\.name)
            #expect(Set(names).count == names.count, "\(source.type)")
            #expect(!source.options.map(\.spec).contains { $0.name == "name" || $0.name == "type" }, "\(source.type)")
        }
        #expect(Set(Registry.sources.map { $0.type }).count == Registry.sources.count)
    }
}
