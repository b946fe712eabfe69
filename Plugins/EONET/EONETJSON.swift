import Foundation
import MonitorCore

/// Decoding EONET's JSON, with errors that say where a response went wrong.
enum EONETJSON {
    /// Reads an events response from its bytes (see `JSONReader`); the error names the path of the bad value
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

    /// Reads an events response from its bytes, handing each event to `each` as soon as it is read (see
    /// `EONETEventList.read`); the error is `decode(_:from:)`'s.
    static func forEachEvent(in body: [UInt8], _ each: (EONETEvent) -> Void) throws(SourceError) {
        var reader = JSONReader(body)
        do throws(JSONError) {
            try EONETEventList.read(&reader, each: each)
            try reader.end()
        } catch {
            throw SourceError(error.description)
        }
    }

    /// The items of an events response met as the answer of the category `requested` while the feed polls the
    /// categories `selected` (see `EONETEvent.item(requested:selected:)`), made event by event, and the ids of
    /// the events without a date (no item); the error is `decode(_:from:)`'s.
    static func items(
        in body: [UInt8], requested: String, selected: Set<String>
    ) throws(SourceError) -> (items: [Item], undated: [String]) {
        var items: [Item] = []
        // Room for more items than the body can hold (an event takes a few hundred bytes), so that the list is not
        // copied as it grows; what is not written is never touched.
        items.reserveCapacity(body.count / 128)
        var undated: [String] = []
        var making = EONETItems(requested: requested, selected: selected)
        try forEachEvent(in: body) { event in
            if let item = making.item(of: event) { items.append(item) } else { undated.append(event.id) }
        }
        return (items, undated)
    }

    /// Decodes `body` as `type`; the error names the path of the bad value (`events[3].geometry[0].date`).
    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws(SourceError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch let error as DecodingError {
            throw SourceError(describe(error))
        } catch {
            throw SourceError("\(error)")
        }
    }

    /// The category list as kept between polls: `[{"id":…,"title":…}]`.
    static func saved(_ categories: [EONETCategoryList.Category]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(categories)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The category list kept by `saved(_:)`.
    static func catalog(fromSaved text: String) throws(SourceError) -> [EONETCategoryList.Category] {
        try decode([EONETCategoryList.Category].self, from: Array(text.utf8))
    }

    /// `at events[3].geometry[0].date: not an ISO-8601 date: 'yesterday'`.
    static func describe(_ error: DecodingError) -> String {
        let context: DecodingError.Context
        var problem: String
        switch error {
        case .keyNotFound(let key, let keyContext):
            context = keyContext
            problem = "missing '\(key.stringValue)'"
        case .valueNotFound(_, let valueContext):
            context = valueContext
            problem = "null where a value is needed"
        case .typeMismatch(let type, let typeContext):
            context = typeContext
            problem = "expected \(name(of: type))"
        case .dataCorrupted(let corruptContext):
            context = corruptContext
            problem = corruptContext.debugDescription
        @unknown default:
            return "\(error)"
        }
        if case .dataCorrupted = error, context.codingPath.isEmpty {
            problem = "not valid JSON"
        }
        let path = self.path(context.codingPath)
        return path.isEmpty ? problem : "at \(path): \(problem)"
    }

    /// `events[3].geometry[0].date`.
    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    private static func name(of type: Any.Type) -> String {
        let name = String(describing: type)
        if type == String.self { return "a string" }
        if type == Double.self || type == Int.self { return "a number" }
        if name.hasPrefix("Array<") { return "a list" }
        if name.hasPrefix("Dictionary<") { return "an object" }
        return name
    }
}
