import MonitorCore
import MonitorItems
import MonitorJSON

/// Decoding EONET's JSON, with errors that say where a response went wrong.
enum EONETJSON {
    /// The items of an events response met as the answer of the category `requested` while the feed polls the
    /// categories `selected` (see `EONETEvent.groups(of:requested:selected:)`), made event by event, and the ids of
    /// the events without a date (no item); the error names the path of the bad value (`at events[3].geometry[0].date:
    /// not an ISO-8601 date: 'yesterday'`).
    static func items(
        in body: [UInt8], requested: String, selected: Set<String>
    ) throws(SourceError) -> (items: [Item], undated: [String]) {
        var items: [Item] = []
        // Room for more items than the body can hold (an event takes a few hundred bytes), so that the list is not
        // copied as it grows; what is not written is never touched.
        items.reserveCapacity(body.count / 128)
        var undated: [String] = []
        var reader = JSONReader(body)
        do throws(JSONError) {
            var found = false
            try reader.members { (key, reader) throws(JSONError) in
                guard reader.key(key, is: "events") else { return }
                found = true
                // The categories of the event before and their groups (none before the first): events of the same
                // categories (nearly all of a response) share one list of each, so that an item costs no list.
                var categories: [String] = []
                var groups: [String] = []
                try reader.elements { (reader) throws(JSONError) in
                    let event = try EONETEvent.read(&reader, previous: categories)
                    if groups.isEmpty || event.categories != categories {
                        categories = event.categories
                        groups = EONETEvent.groups(of: categories, requested: requested, selected: selected)
                    }
                    // The event is given up to its item (not copied); one without a date has none.
                    let id = event.id
                    if let item = event.item(groups: groups) {
                        items.append(item)
                    } else {
                        undated.append(id)
                    }
                }
            }
            guard found else { throw .missing("events") }
            try reader.end()
            return (items, undated)
        } catch {
            throw SourceError(error.description)
        }
    }

    /// Reads a category list from its bytes; the error names the path of the bad value (`at categories[2]: missing
    /// 'id'`), and says only `not valid JSON` of a body that is not JSON.
    static func decode(_ type: EONETCategoryList.Type, from body: [UInt8]) throws(SourceError) -> EONETCategoryList {
        do throws(JSONError) {
            return try JSONReader.document(body) { (reader) throws(JSONError) in try EONETCategoryList(from: &reader) }
        } catch {
            throw SourceError(error.isSyntax ? "not valid JSON" : error.description)
        }
    }

    /// The category list as kept between polls: `[{"id":…,"title":…}]`.
    static func saved(_ categories: [EONETCategoryList.Category]) -> String {
        JSONValue.array(
            categories.map { .object([("id", .string($0.id)), ("title", .string($0.title))]) }
        ).text
    }

    /// The category list kept by `saved(_:)`.
    static func catalog(fromSaved text: String) throws(SourceError) -> [EONETCategoryList.Category] {
        do throws(JSONError) {
            return try JSONReader.document(Array(text.utf8), EONETCategoryList.Category.list)
        } catch {
            throw SourceError(error.description)
        }
    }
}
