import MonitorCore

/// What `GET {api}/events` answers: `{"title","description","link","events":[…]}`.
struct EONETEventList: Sendable {
    /// The events, newest first by their first observation.
    var events: [EONETEvent]
}

// MARK: - Reading

extension EONETEventList {
    /// Reads the document's object; its other members are checked and skipped.
    init(from reader: inout JSONReader) throws(JSONError) {
        var events: [EONETEvent] = []
        try Self.read(&reader) { events.append($0) }
        self.events = events
    }

    /// Reads the document's object, handing each event to `each` as soon as it is read, so that the events are
    /// never all held at once; its other members are checked and skipped. On an error, the events handed
    /// before it are of a document that is refused.
    static func read(_ reader: inout JSONReader, each: (EONETEvent) -> Void) throws(JSONError) {
        try reader.enterObject()
        var found = false
        var index = 0
        while let key = try reader.nextKey(index) {
            index += 1
            guard reader.key(key, is: "events") else {
                try reader.skipMember(key)
                continue
            }
            try reader.member(.key("events")) { (reader: inout JSONReader) throws(JSONError) in
                try reader.enterArray()
                var element = 0
                // The categories of the event before, shared by the next when they are the same.
                var categories: [String] = []
                while try reader.nextElement(element) {
                    let event = try reader.member(.index(element)) { (reader: inout JSONReader) throws(JSONError) in
                        try EONETEvent(from: &reader, previous: categories)
                    }
                    categories = event.categories
                    each(event)
                    element += 1
                }
            }
            found = true
        }
        guard found else { throw .missing("events") }
    }
}
