import Foundation
import MonitorCore
import MonitorItems
import MonitorOptions
import MonitorText

/// One poll of an EONET feed: the category list, then the events of each selected category (as many at once as the
/// core allows), each response decoded and reported as it arrives.
struct EONETPoll: Sendable {
    /// The key under which the whole category list is kept between polls, for a 304 on `/categories`.
    static let catalogKey = "categories"

    let options: FeedOptions
    /// The core's context for this poll.
    let context: PollContext

    /// The API root, without a trailing slash.
    var api: String {
        var api = options[EONETSource.api]
        while api.hasSuffix("/") { api.removeLast() }
        return api
    }

    /// The category ids asked for; nil for all.
    var categories: [String]? { options[EONETSource.categories] }

    /// Polls, reporting to `found`. Throws when the category list cannot be had or a category id is unknown:
    /// the whole poll fails.
    func run(_ found: Findings) async throws {
        let catalog = try await fetchCategories()
        let selected = try select(from: catalog)
        found.groups(selected.map { ItemGroup(id: $0.id, title: $0.title) })
        let selectedIDs = Set(selected.map(\.id))
        // The core bounds the requests and hands each answer over as it arrives, decoded while the next downloads go on.
        try await context.fetchEach(selected, after: 1, progress: found) { category in
            (category, try await self.fetchEvents(of: category))
        } report: { category, response in
            report(response, of: category, selected: selectedIDs, to: found)
        }
    }

    // MARK: - Categories

    /// The server's category list, in its order; on a 304, the list kept from the last 200.
    func fetchCategories() async throws -> [EONETCategoryList.Category] {
        let url = "\(api)/categories"
        let response = try await context.http.get(url)
        if response.status == 304 {
            guard let saved = context.values[Self.catalogKey], let list = try? EONETJSON.catalog(fromSaved: saved)
            else {
                throw SourceError("GET \(url): answered 304 Not Modified, but no category list is stored")
            }
            return list
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
    /// each with its suggestion and the valid ids once at the end, at most ``shownCategories`` of them.
    static func unknownCategories(_ unknown: [String], known: [String]) -> SourceError {
        let more = known.count > shownCategories ? " and \(known.count - shownCategories) more" : ""
        let valid = "valid: \(known.prefix(shownCategories).joined(separator: ", "))\(more)"
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

    /// The most valid ids an unknown category's error lists: a server may list any number.
    static let shownCategories = 20

    // MARK: - Events

    /// `{api}/events?category=ID&status=…&days=…[&limit=…]`.
    func eventsURL(of category: String) -> String {
        var url = "\(api)/events?category=\(category.percentEncoded())&status=\(options[EONETSource.status])"
        url += "&days=\(options[EONETSource.days])"
        if let limit = options[EONETSource.limit] { url += "&limit=\(limit)" }
        return url
    }

    /// The answer to one category's events request; a failed request is a failure of that category only.
    /// Cancellation is thrown.
    func fetchEvents(of category: EONETCategoryList.Category) async throws -> Result<HTTPResponse, FetchError> {
        do {
            return .success(try await context.http.get(eventsURL(of: category.id)))
        } catch let error as FetchError {
            return .failure(error)
        }
    }

    /// Reports one category's answer: its events as items and the category complete; a 304 as unchanged (the
    /// core counts its stored events again); a failed or undecodable answer as a failure of the category.
    func report(
        _ answer: Result<HTTPResponse, FetchError>, of category: EONETCategoryList.Category, selected: Set<String>,
        to found: Findings
    ) {
        let url = eventsURL(of: category.id)
        let what = "category '\(category.id)'"
        let response: HTTPResponse
        switch answer {
        case .failure(let error):
            return found.failed(what, "\(error)", group: category.id)
        case .success(let answer):
            response = answer
        }
        if response.status == 304 {
            return found.unchanged(groups: [category.id])
        }
        // Each event becomes its item as soon as it is read: the events are never all held.
        let items: [Item]
        let undated: [String]
        do {
            (items, undated) = try EONETJSON.items(in: response.body, requested: category.id, selected: selected)
        } catch {
            // Its validators must not make the next answer a 304 for a body that could not be read.
            context.http.forget(url)
            return found.failed(what, "GET \(url): not an EONET event list (\(error.message))", group: category.id)
        }
        for event in undated {
            context.logger.warning(
                "event without a date skipped", metadata: ["event": "\(event)", "category": "\(category.id)"])
        }
        found.items(items)
        found.completed([category.id])
    }
}
