import MonitorCore
import MonitorItems
import MonitorJSON

/// Decoding EONET's JSON, with errors that say where a response went wrong.
enum EONETJSON {
    /// The items of an events response met as the answer of the category `requested` while the feed polls the
    /// categories `selected` (see `EONETEvent.groups(of:requested:selected:)`), made event by event, and the ids of
    /// the events without a date (no item); the error names the path of the bad value (`at events[3].geometry[0].date:
    /// not an ISO-8601 date: 'yesterday'`). The usual events are read by `EONETEventScanner` when `scanning` (else
    /// every event by `EONETEvent(from:previous:)`); `scanned` says how many.
    static func items(
        in body: [UInt8], requested: String, selected: Set<String>, scanning: Bool = true
    ) throws(SourceError) -> (items: [Item], undated: [String], scanned: Int) {
        var items: [Item] = []
        // Room for more items than the body can hold (an event takes a few hundred bytes), so that the list is not
        // copied as it grows; what is not written is never touched.
        items.reserveCapacity(body.count / 128)
        var undated: [String] = []
        var scanned = 0
        var reader = JSONReader(body)
        do throws(JSONError) {
            var found = false
            try reader.members { (key, reader) throws(JSONError) in
                guard reader.key(key, is: "events") else { return }
                found = true
                var scanner = EONETEventScanner(requested: requested, selected: selected)
                // The categories of the event before and their groups: events of the same categories (nearly all of
                // a response) share one list of groups, so that an item costs one list fewer.
                var last: (categories: [String], groups: [String])?
                try reader.elements { (reader) throws(JSONError) in
                    if scanning, scanner.event(&reader, into: &items, undated: &undated) {
                        scanned += 1
                        return
                    }
                    let read = try EONETEvent(from: &reader, previous: last?.categories ?? [])
                    let groups: [String]
                    if let last, last.categories == read.categories {
                        groups = last.groups
                    } else {
                        groups = EONETEvent.groups(of: read.categories, requested: requested, selected: selected)
                        last = (read.categories, groups)
                    }
                    if let item = read.item(groups: groups) { items.append(item) } else { undated.append(read.id) }
                }
            }
            guard found else { throw .missing("events") }
            try reader.end()
            return (items, undated, scanned)
        } catch {
            throw SourceError(error.description)
        }
    }

    /// Reads a category list from its bytes; the error names the path of the bad value (`at categories[2]: missing
    /// 'id'`), and says only `not valid JSON` of a body that is not JSON.
    static func decode(_ type: EONETCategoryList.Type, from body: [UInt8]) throws(SourceError) -> EONETCategoryList {
        var reader = JSONReader(body)
        do throws(JSONError) {
            let list = try EONETCategoryList(from: &reader)
            try reader.end()
            return list
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
        var reader = JSONReader(Array(text.utf8))
        do throws(JSONError) {
            let list = try EONETCategoryList.Category.list(&reader)
            try reader.end()
            return list
        } catch {
            throw SourceError(error.description)
        }
    }
}
