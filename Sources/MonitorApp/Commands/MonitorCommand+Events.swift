import ArgumentParser
import Foundation
import MonitorCore
import MonitorJSON
import MonitorRules
import MonitorText

extension MonitorCommand {
    /// `monitor events NAME`: a feed's stored items, newest first, offline.
    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "events",
            abstract: "List a feed's stored items, newest first (offline).",
            discussion: """
                Example: monitor events planet --group wildfires --days 30
                         monitor events planet --where 'group == "wildfires" and near(34.05, -118.25, 500km)'
                """
        )

        @OptionGroup var selection: ItemSelection

        @Option(help: "At most N items.")
        var limit: Int?

        @Option(
            name: .customLong("where"),
            help: ArgumentHelp(
                "Only the items this rule matches, as `where:` in the feeds file would keep them (docs/rules.md).",
                valueName: "rule"))
        var rule: String?

        @Option(help: "Output format: text or json.")
        var format: OutputFormat = .text

        @OptionGroup var stateOptions: StateOptions
        /// Accepted so that one command line serves every subcommand; the stored state is all `events` reads.
        @OptionGroup(visibility: .hidden) var configOptions: ConfigOptions

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run() async throws {
            let (store, record) = try await stateOptions.storedFeed(selection.name, command: "events")
            _ = try await selection.groupTitle(in: store, command: "events")
            let source = Registry.source(named: record.type)
            var checked: Rule?
            if let rule {
                do {
                    checked = try Rule(rule, details: source?.detailNames)
                } catch {
                    // Rendered like an error of the feeds file, the column counted within the argument.
                    let renderer = DiagnosticRenderer(
                        path: "--where", source: rule, colors: Console.colors(onStandardError: true))
                    Console.error(
                        renderer.render([error.diagnostic(in: rule, startingAt: SourceLocation(line: 1, column: 1))]))
                    throw ExitStatus.failure
                }
            }
            // The database selects the items (`--group`, `--days` and `--limit` through its indexes); with a rule,
            // `--limit` counts the items it matches.
            let now = Date()
            var items = try await store.items(
                feed: selection.name, group: selection.group, since: selection.since(now: now),
                limit: checked == nil ? limit : nil)
            if let checked {
                items = items.filter { checked.matches($0, now: now, source: source) }
                if let limit { items = Array(items.prefix(limit)) }
            }
            switch format {
            case .json:
                Console.out(JSONValue.array(items.map { $0.json() }).text + "\n")
            case .text:
                let columns = source?.detailColumns ?? []
                Console.out(EventsListing.text(items, columns: columns))
            }
        }
    }
}
