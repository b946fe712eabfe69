import Foundation
import MonitorCore
import MonitorItems
import MonitorJSON

extension EONETEvent {
    /// The event's newest activity: its last observation, or its closing when that is later; nil when it has
    /// neither.
    var latestDate: Date? {
        guard let observed = latest?.date else { return closed }
        guard let closed else { return observed }
        return max(observed, closed)
    }

    /// The groups of the item of an event of `categories`, met in the response of the category `requested` while the
    /// feed polls the categories `selected`: its own categories among those selected, so that the item is the same
    /// whichever category's response it came from (an event in two categories counts in both, once in the total);
    /// the requested category is added if the event does not name it, so that each response counts fully.
    static func groups(of categories: [String], requested: String, selected: Set<String>) -> [String] {
        var groups: [String] = []
        for category in categories where selected.contains(category) && !groups.contains(category) {
            groups.append(category)
        }
        if !groups.contains(requested) { groups.append(requested) }
        return groups
    }

    /// The item of this event in `groups`; nil when the event has no date at all. Its title is its id when empty; its
    /// details are its status (and when it was closed), the latest magnitude known, the newest observation's position
    /// and shape, and the description, in that order, those it lacks left out. The position and magnitude are also
    /// the item's numbers, when they are in bounds. It takes the event, so that its texts go to the item uncopied.
    @inline(__always)
    consuming func item(groups: [String]) -> Item? {
        guard let date = latestDate else { return nil }
        let magnitude = latestMagnitude?.magnitude
        let position = latest?.position
        let geometry = latest.flatMap { $0.type.isEmpty ? nil : $0.type }
        // Exactly as many as there are, no room to spare: the items of a response are all held at once.
        var count = 1
        if closed != nil { count += 1 }
        if magnitude != nil { count += 1 }
        if position != nil { count += 1 }
        if geometry != nil { count += 1 }
        if description != nil { count += 1 }
        var details: [Detail] = []
        details.reserveCapacity(count)
        details.append(Detail("status", closed == nil ? "open" : "closed"))
        if let closed { details.append(Detail("closed", ISO8601.fixedString(closed))) }
        if let magnitude { details.append(Detail("magnitude", magnitude)) }
        if let position { details.append(Detail("position", position.text)) }
        if let geometry { details.append(Detail("geometry", geometry)) }
        if let description { details.append(Detail("description", description)) }
        return Item(
            id: id, title: title.isEmpty ? id : title, date: date, groups: groups, url: source ?? link,
            details: details,
            location: position.flatMap { Item.Position(latitude: $0.latitude, longitude: $0.longitude) },
            magnitude: latestMagnitude?.magnitudeValue.flatMap {
                Item.Magnitude(value: $0, unit: latestMagnitude?.magnitudeUnit)
            })
    }
}
