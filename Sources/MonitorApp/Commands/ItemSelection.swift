import ArgumentParser
import Foundation

/// The `--group` and `--days` options of the commands that read a feed's stored items (`events`, `map`).
struct ItemSelection: ParsableArguments {
    @Option(help: ArgumentHelp("Only items of this group (an EONET category, a GitHub event type).", valueName: "id"))
    var group: String?

    @Option(help: "Only items dated within the last N days.")
    var days: Int?

    func validate() throws {
        if let days, days < 1 { throw ValidationError("--days must be at least 1") }
    }

    /// The oldest date selected by `--days` at `now`; nil without it.
    func since(now: Date) -> Date? {
        days.map { EventsListing.since(days: $0, now: now) }
    }
}
