import MonitorCore
import MonitorItems
import MonitorJSON
import MonitorOptions

/// The `eonet` source: NASA's Earth Observatory Natural Event Tracker — categories and their events.
///
/// A poll asks `GET {api}/categories` first, then the events of each selected category with
/// `GET {api}/events?category=ID&status=…&days=…`, at most `concurrency` at once, merged as they complete.
/// Each event becomes one item whose groups are its categories, so an event in two categories counts in
/// both and once in the total.
package struct EONETSource: FeedSource {
    package static let type = "eonet"
    package static let summary = "NASA EONET natural events (wildfires, storms, volcanoes…), counted per category"

    static let api = FeedOption<String>(
        "api", .url, default: "https://eonet.gsfc.nasa.gov/api/v3", doc: "API root (v3)")
    static let days = FeedOption<Int>(
        "days", .integer(1...36500), default: 360, doc: "How many prior days of events to ask for")
    static let status = FeedOption<String>(
        "status", .choice(["open", "closed", "all"]), default: "all", doc: "Which events: open, closed or all")
    static let categories = FeedOption<[String]?>(
        "categories", .list(placeholder: "category ids"),
        doc: "Only these categories, e.g. [wildfires, volcanoes] (default: all)")
    static let limit = FeedOption<Int?>("limit", .integer(1...Int.max), doc: "At most this many events per category")
    static let concurrency = FeedOption<Int>(
        "concurrency", .integer(1...256), default: 2, doc: "Category downloads in flight (at most settings.concurrency)"
    )

    package static let options: [any OptionDeclaration] = [api, days, status, categories, limit, concurrency]

    /// `monitor events` shows whether an event is open, its latest magnitude and its latest position.
    package static var detailColumns: [String] { ["status", "magnitude", "position"] }

    /// The details of an event's item (see `EONETEvent.item`) and those rules see besides (`ruleDetails(of:)`).
    package static var detailNames: [String]? {
        [
            "status", "closed", "magnitude", "magnitude_value", "magnitude_unit", "position", "lat", "lon", "geometry",
            "description",
        ]
    }

    /// For rules: `magnitude_value` and `magnitude_unit` from the item's magnitude, `lat` and `lon` from its location.
    package static func ruleDetails(of item: Item) -> [Detail] {
        var details: [Detail] = []
        if let magnitude = item.magnitude {
            details.append(Detail("magnitude_value", JSONValue.number(magnitude.value).text))
            if let unit = magnitude.unit { details.append(Detail("magnitude_unit", unit)) }
        }
        if let location = item.location {
            details.append(Detail("lat", "\(location.latitude)"))
            details.append(Detail("lon", "\(location.longitude)"))
        }
        return details
    }

    /// The core counts each category's events by their status: open or closed.
    package static var breakdown: Breakdown? { Breakdown(detail: "status", values: ["open", "closed"]) }

    let options: FeedOptions

    package init(options: FeedOptions) {
        self.options = options
    }

    /// Each poll returns the whole window of events: what the server no longer lists is dropped.
    package var retention: ItemRetention { .replace }

    package func poll(_ context: PollContext, _ found: Findings) async throws {
        try await EONETPoll(options: options, context: context).run(found)
    }
}
