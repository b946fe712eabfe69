import MonitorItems

@testable import EONETSource
@testable import MonitorCore
@testable import MonitorJSON

/// What `GET {api}/events` answers, `{"title","description","link","events":[…]}`, read event by event with
/// `EONETEvent.read(_:previous:)`: what the tests check the events and the items against.
struct EONETEventList: Sendable {
    /// The events, newest first by their first observation.
    var events: [EONETEvent]

    /// Reads the document's object; its other members are checked and skipped.
    init(from reader: inout JSONReader) throws(JSONError) {
        var events: [EONETEvent] = []
        var found = false
        try reader.members { (key, reader) throws(JSONError) in
            guard reader.key(key, is: "events") else { return }
            // The categories of the event before, shared by the next when they are the same.
            var categories: [String] = []
            try reader.elements { (reader) throws(JSONError) in
                let event = try EONETEvent.read(&reader, previous: categories)
                categories = event.categories
                events.append(event)
            }
            found = true
        }
        guard found else { throw .missing("events") }
        self.events = events
    }
}

extension EONETJSON {
    /// Reads an events response from its bytes; the error names the path of the bad value
    /// (`at events[3].geometry[0].date: not an ISO-8601 date: 'yesterday'`).
    static func decode(_ type: EONETEventList.Type, from body: [UInt8]) throws(SourceError) -> EONETEventList {
        var reader = JSONReader(body)
        do throws(JSONError) {
            let list = try EONETEventList(from: &reader)
            try reader.end()
            return list
        } catch {
            throw SourceError(error.description)
        }
    }
}

extension EONETEvent {
    /// The item of this event met in the response of the category `requested` while the feed polls `selected`.
    func item(requested: String, selected: Set<String>) -> Item? {
        item(groups: Self.groups(of: categories, requested: requested, selected: selected))
    }
}
