import ArgumentParser
import Foundation
import MonitorCore
import MonitorText

/// The feed and the `--group` and `--days` options of the commands that read a feed's stored items (`events`, `map`).
struct ItemSelection: ParsableArguments {
    @Argument(help: "The feed's name, as in the feeds file.")
    var name: String

    @Option(
        help: ArgumentHelp(
            "Only items of this group (an EONET category, a GitHub event type); an unknown one is an error.",
            valueName: "id"))
    var group: String?

    @Option(help: "Only items dated within the last N days.")
    var days: Int?

    func validate() throws {
        if let days, days < 1 { throw ValidationError("--days must be at least 1") }
    }

    /// The title of the `--group` of the feed `name` (nil without one): a group is known from the feed's catalog, else
    /// from any stored item of it; an unknown one prints `monitor COMMAND: error: feed … has no group …` with the
    /// closest known one, and exits 1. Every command that takes `--group` checks it here.
    func groupTitle(in store: any StateStoring, command: String) async throws -> String? {
        guard let group else { return nil }
        let catalog = try await store.groups(feed: name)
        if let known = catalog.first(where: { $0.id == group }) { return known.title }
        if try await !store.items(feed: name, group: group, limit: 1).isEmpty { return group }
        let names = catalog.map(\.id)
        let hint = Suggestion.closest(to: group, in: names).map { "did you mean '\($0)'? " } ?? ""
        let known = names.isEmpty ? "it has none stored" : "\(hint)groups: \(names.joined(separator: ", "))"
        Console.error("monitor \(command): error: feed '\(name)' has no group '\(group)' (\(known))\n")
        throw ExitStatus.failure
    }

    /// The oldest date selected by `--days` at `now`; nil without it.
    func since(now: Date) -> Date? {
        days.map { EventsListing.since(days: $0, now: now) }
    }
}
