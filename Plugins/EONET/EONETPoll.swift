import Foundation
import MonitorCore

/// One poll of an EONET feed: the category list, then the events of each selected category, at most
/// `context.concurrency` requests in flight, turned into updates as each response arrives.
struct EONETPoll: Sendable {
    /// What one category's download came to.
    enum Outcome: Sendable {
        /// The category's events (its stored ones again when the server answered 304).
        case events(category: String, items: [Item])
        /// The category's request failed; the core keeps its stored items.
        case failure(SubRequestFailure)
    }

    /// The key under which the whole category list is kept between polls, for a 304 on `/categories`.
    static let catalogKey = "categories"

    /// The API root, without a trailing slash.
    let api: String
    /// The window of prior days asked of the server.
    let days: Int
    /// `open`, `closed` or `all`.
    let status: String
    /// The category ids asked for; nil for all.
    let categories: [String]?
    /// At most this many events per category, when set.
    let limit: Int?
    /// The core's context for this poll.
    let context: PollContext

    /// The poll of a feed with `options`.
    init(options: FeedOptions, context: PollContext) {
        var api = options.string("api") ?? "https://eonet.gsfc.nasa.gov/api/v3"
        while api.hasSuffix("/") { api.removeLast() }
        self.api = api
        days = options.integer("days") ?? 360
        status = options.string("status") ?? "all"
        categories = options.list("categories")
        limit = options.integer("limit")
        self.context = context
    }

    /// Polls, handing each update to `yield`. Throws when the category list cannot be had or a category id
    /// is unknown: the whole poll fails.
    func run(_ yield: @Sendable (SourceUpdate) -> Void) async throws {
        let catalog = try await fetchCategories()
        let selected = try select(from: catalog)
        let total = 1 + selected.count
        yield(.groups(selected.map { ItemGroup(id: $0.id, title: $0.title) }))
        yield(.progress(done: 1, total: total))

        let selectedIDs = Set(selected.map(\.id))
        var done = 1
        let downloads = mergeBounded(selected, limit: context.concurrency) { category in
            try await self.fetchEvents(of: category, selected: selectedIDs)
        }
        for try await outcome in downloads {
            done += 1
            switch outcome {
            case .events(let category, let items):
                if !items.isEmpty { yield(.items(items)) }
                yield(.completed(groups: [category]))
            case .failure(let failure):
                yield(.failure(failure))
            }
            yield(.progress(done: done, total: total))
        }
    }

    // MARK: - Categories

    /// The server's category list, in its order; on a 304, the list kept from the last 200.
    func fetchCategories() async throws -> [EONETCategoryList.Category] {
        let url = "\(api)/categories"
        let response = try await context.http.get(url)
        if response.status == 304 {
            if let saved = context.values[Self.catalogKey], let list = try? EONETJSON.catalog(fromSaved: saved) {
                return list
            }
            guard !context.stored.groups.isEmpty else {
                throw SourceError("GET \(url): answered 304 Not Modified, but no category list is stored")
            }
            return context.stored.groups.map { EONETCategoryList.Category(id: $0.id, title: $0.title) }
        }
        let list: EONETCategoryList
        do {
            list = try EONETJSON.decode(EONETCategoryList.self, from: response.body)
        } catch {
            throw SourceError("GET \(url): not an EONET category list (\(error.message))")
        }
        let saved = EONETJSON.saved(list.categories)
        if context.values[Self.catalogKey] != saved { context.values[Self.catalogKey] = saved }
        return list.categories
    }

    /// The categories to fetch, in the server's order: all of them, or those named by `categories`.
    /// An unknown id fails the poll with the valid ones and the likeliest meant.
    func select(from catalog: [EONETCategoryList.Category]) throws -> [EONETCategoryList.Category] {
        guard let categories else { return catalog }
        let known = catalog.map(\.id)
        var unknown: [String] = []
        for id in categories where !known.contains(id) && !unknown.contains(id) { unknown.append(id) }
        guard unknown.isEmpty else { throw Self.unknownCategories(unknown, known: known) }
        let wanted = Set(categories)
        return catalog.filter { wanted.contains($0.id) }
    }

    /// `unknown category 'wildfire' (did you mean 'wildfires'? valid: drought, dustHaze, …)`; with several,
    /// each with its suggestion and the valid ids once at the end.
    static func unknownCategories(_ unknown: [String], known: [String]) -> SourceError {
        let valid = "valid: \(known.joined(separator: ", "))"
        let suggestions = unknown.map { Suggestion.closest(to: $0, in: known).map { "did you mean '\($0)'?" } }
        if unknown.count == 1 {
            let hint = suggestions[0].map { "\($0) " } ?? ""
            return SourceError("unknown category '\(unknown[0])' (\(hint)\(valid))")
        }
        let named = zip(unknown, suggestions).map { id, suggestion in
            "'\(id)'" + (suggestion.map { " (\($0))" } ?? "")
        }
        return SourceError("unknown categories \(named.joined(separator: ", ")) (\(valid))")
    }

    // MARK: - Events

    /// `{api}/events?category=ID&status=…&days=…[&limit=…]`.
    func eventsURL(of category: String) -> String {
        var url = "\(api)/events?category=\(category.percentEncoded())&status=\(status)&days=\(days)"
        if let limit { url += "&limit=\(limit)" }
        return url
    }

    /// The events of one category as items; a failed request or an undecodable response is a failure of that
    /// category only. Cancellation is thrown.
    func fetchEvents(of category: EONETCategoryList.Category, selected: Set<String>) async throws -> Outcome {
        let url = eventsURL(of: category.id)
        let failure = { (message: String) -> Outcome in
            .failure(SubRequestFailure(what: "category '\(category.id)'", message: message, group: category.id))
        }
        let response: HTTPResponse
        do {
            response = try await context.http.get(url)
        } catch let error as FetchError {
            return failure("\(error)")
        }
        if response.status == 304 {
            // Nothing changed: the stored events of the category count again, in the categories polled now.
            let stored = context.stored.items.filter { $0.groups.contains(category.id) }.map { item in
                var item = item
                item.groups = item.groups.filter { selected.contains($0) || $0 == category.id }
                return item
            }
            return .events(category: category.id, items: stored)
        }
        let list: EONETEventList
        do {
            list = try EONETJSON.decode(EONETEventList.self, from: response.body)
        } catch {
            return failure("GET \(url): not an EONET event list (\(error.message))")
        }
        var items: [Item] = []
        for event in list.events {
            if let item = event.item(requested: category.id, selected: selected) {
                items.append(item)
            } else {
                context.logger.warning(
                    "event without a date skipped", metadata: ["event": "\(event.id)", "category": "\(category.id)"])
            }
        }
        return .events(category: category.id, items: items)
    }
}
