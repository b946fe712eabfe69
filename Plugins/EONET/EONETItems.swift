import MonitorCore

/// The items of one category's response, made event by event: events of the same categories (nearly all of a
/// response) share one list of groups, so that an item costs one list fewer.
struct EONETItems {
    /// The category whose response this is.
    let requested: String
    /// The categories the feed polls.
    let selected: Set<String>
    /// The categories of the event before, and the groups made of them.
    private var last: (categories: [String], groups: [String])?

    /// Items of the response to `requested`, for a feed polling `selected`.
    init(requested: String, selected: Set<String>) {
        self.requested = requested
        self.selected = selected
    }

    /// The categories of the event before, for the next to share (see `EONETEvent(from:previous:)`).
    var categories: [String] { last?.categories ?? [] }

    /// What `event` comes to: its item in the groups `EONETEvent.groups(of:requested:selected:)` gives, or its id when it has no date.
    mutating func event(_ event: EONETEvent) -> EONETEventScanner.Event {
        let groups: [String]
        if let last, last.categories == event.categories {
            groups = last.groups
        } else {
            groups = EONETEvent.groups(of: event.categories, requested: requested, selected: selected)
            last = (event.categories, groups)
        }
        return event.item(groups: groups).map { .item($0) } ?? .undated(event.id)
    }
}
