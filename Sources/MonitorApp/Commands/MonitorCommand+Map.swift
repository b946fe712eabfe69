import ArgumentParser
import Foundation
import MonitorCore

#if canImport(Glibc)
    import Glibc
#endif

extension MonitorCommand {
    /// `monitor map NAME`: a world map of a feed's stored items that have a position, offline.
    struct Map: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "map",
            abstract: "Draw a world map of a feed's stored items that have a position (offline).",
            discussion: """
                Each group has its own symbol (and colour on a terminal, unless NO_COLOR is set); the legend below \
                the map says how many of each group's items are on it and how many have no position.
                Example: monitor map planet --group wildfires --days 30
                """
        )

        @Argument(help: "The feed's name, as in the feeds file.")
        var name: String

        @OptionGroup var selection: ItemSelection

        @Option(help: "The map's width in columns, 1–1000 (default: the terminal's, else 100).")
        var width: Int?

        @Option(
            help: "The map's height in rows, the legend excluded, 1–500 (default: what the terminal leaves, else 30).")
        var height: Int?

        @OptionGroup var stateOptions: StateOptions
        /// Accepted so that one command line serves every subcommand; the stored state is all `map` reads.
        @OptionGroup(visibility: .hidden) var configOptions: ConfigOptions

        func validate() throws {
            if let width, !(1...WorldMap.maxColumns).contains(width) {
                throw ValidationError("--width must be between 1 and \(WorldMap.maxColumns), not \(width)")
            }
            if let height, !(1...WorldMap.maxRows).contains(height) {
                throw ValidationError("--height must be between 1 and \(WorldMap.maxRows), not \(height)")
            }
        }

        func run() async throws {
            let (store, _) = try await stateOptions.storedFeed(name, command: "map")
            let now = Date()
            let items = try await store.items(
                feed: name, group: selection.group, since: selection.since(now: now), limit: nil)
            let catalog = try await store.groups(feed: name)
            let known = StoredFeed(feed: name, catalog: catalog, items: items, breakdownDetail: nil)
                .groups(within: nil, now: now)
            var groups = known.filter { $0.count > 0 }.map { WorldMap.Group(id: $0.id, title: $0.title) }
            if let group = selection.group {
                // A group is known from the catalog, else from any of its items (in the window or not).
                let stored = try await !(items.isEmpty ? store.items(feed: name, group: group, limit: 1) : items)
                    .isEmpty
                guard let title = catalog.first(where: { $0.id == group })?.title ?? (stored ? group : nil) else {
                    let names = catalog.map(\.id)
                    let hint = Suggestion.closest(to: group, in: names).map { "did you mean '\($0)'? " } ?? ""
                    Console.error(
                        "monitor map: error: feed '\(name)' has no group '\(group)' (\(hint)groups: "
                            + "\(names.joined(separator: ", ")))\n")
                    throw ExitStatus.failure
                }
                groups = [WorldMap.Group(id: group, title: title)]
            }
            let screen = isatty(STDOUT_FILENO) == 1 ? TerminalSession.size() : (width: 100, height: 30)
            // On a terminal the map leaves room for the legend and the prompt.
            let rows = height ?? (isatty(STDOUT_FILENO) == 1 ? max(screen.height - groups.count - 1, 4) : 30)
            let map = WorldMap(
                columns: width ?? screen.width, rows: rows, colour: Console.colors(onStandardError: false))
            Console.out(map.lines(items: items, groups: groups).joined(separator: "\n") + "\n")
        }
    }
}
