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

    /// Reads the document's object, handing each event's item (or, for an event without a date, its id) to `each`
    /// as soon as the event is read: an event of the usual shape by `EONETEventScanner`, any other (and every one
    /// when `scanning` is false) by `EONETEvent(from:previous:)`, which makes the same item or throws the error
    /// and its path. The document's other members are checked and skipped. Returns how many events the scanner
    /// read. On an error, the items handed before it are of a document that is refused.
    @discardableResult
    static func readItems(
        _ reader: inout JSONReader, requested: String, selected: Set<String>, scanning: Bool = true,
        each: (EONETEventScanner.Event) -> Void
    ) throws(JSONError) -> Int {
        try reader.enterObject()
        var found = false
        var scanned = 0
        var index = 0
        while let key = try reader.nextKey(index) {
            index += 1
            guard reader.key(key, is: "events") else {
                try reader.skipMember(key)
                continue
            }
            try reader.member(.key("events")) { (reader: inout JSONReader) throws(JSONError) in
                try reader.enterArray()
                let document = reader.bytes
                try document.withUnsafeBufferPointer { (buffer) throws(JSONError) in
                    var scanner = EONETEventScanner(
                        document: document, buffer: buffer, requested: requested, selected: selected)
                    var making = EONETItems(requested: requested, selected: selected)
                    // The categories of the event before, shared by the next when they are the same.
                    var categories: [String] = []
                    var element = 0
                    while try reader.nextElement(element) {
                        if scanning, let (event, end) = scanner.event(at: reader.offset, depth: reader.depth) {
                            reader.move(to: end)
                            scanned += 1
                            each(event)
                        } else {
                            let event = try reader.member(.index(element)) {
                                (reader: inout JSONReader) throws(JSONError) in
                                try EONETEvent(from: &reader, previous: categories)
                            }
                            categories = event.categories
                            each(making.item(of: event).map { .item($0) } ?? .undated(event.id))
                        }
                        element += 1
                    }
                }
            }
            found = true
        }
        guard found else { throw .missing("events") }
        return scanned
    }
}
