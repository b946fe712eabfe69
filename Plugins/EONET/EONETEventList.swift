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
        try reader.enterObject()
        var events: [EONETEvent]?
        var index = 0
        while let key = try reader.nextKey(index) {
            index += 1
            guard reader.key(key, is: "events") else {
                try reader.skipMember(key)
                continue
            }
            events = try reader.member(.key("events")) { (reader: inout JSONReader) throws(JSONError) in
                try reader.enterArray()
                var events: [EONETEvent] = []
                var element = 0
                while try reader.nextElement(element) {
                    let event = try reader.member(.index(element)) { (reader: inout JSONReader) throws(JSONError) in
                        try EONETEvent(from: &reader)
                    }
                    events.append(event)
                    element += 1
                }
                return events
            }
        }
        guard let events else { throw .missing("events") }
        self.events = events
    }
}
