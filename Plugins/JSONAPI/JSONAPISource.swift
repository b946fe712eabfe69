import Foundation
import MonitorCore
import MonitorJSON
import MonitorOptions

/// The `json` source: any JSON API, one GET per poll (conditional, as every source's), its items found by paths
/// (``JSONPath``): `items` finds them in the document, and `id`, `title`, `date`, `link`, `group` and `details` find
/// their fields in each.
package struct JSONAPISource: FeedSource {
    package static let type = "json"
    package static let summary = "Any JSON API: its items and their fields found by paths such as data.children[*].data"

    static let url = FeedOption<String?>("url", .url, required: true, doc: "The API's address")
    static let headers = FeedOption<[String: String]?>(
        "headers", .mapping(placeholder: "Name: value", key: checkHeaderName), secret: true,
        doc: "Headers sent with the request, e.g. {Authorization: \"Bearer ${API_TOKEN}\"} (never shown)")
    static let items = FeedOption<String?>(
        "items", .string(placeholder: "path", format: JSONPath.problem), required: true,
        doc: "Where the items are, e.g. data.children[*].data ([*]: each element of a list)")
    static let id = FeedOption<String>(
        "id", .string(placeholder: "path", format: JSONPath.singleProblem), default: "id",
        doc: "Each item's id, unique in the feed")
    static let title = FeedOption<String>(
        "title", .string(placeholder: "path", format: JSONPath.singleProblem), default: "title",
        doc: "Each item's title (its id when it has none)")
    static let date = FeedOption<String?>(
        "date", .string(placeholder: "path", format: JSONPath.singleProblem),
        doc: "Each item's date: ISO 8601, or Unix seconds or milliseconds (default: the poll's time)")
    static let link = FeedOption<String?>(
        "link", .string(placeholder: "path", format: JSONPath.singleProblem), doc: "Each item's web page")
    static let group = FeedOption<String?>(
        "group", .string(placeholder: "path", format: JSONPath.problem),
        doc: "Each item's group, or groups with [*] (default: one group, the feed's name)")
    static let details = FeedOption<[String: String]?>(
        "details", .mapping(placeholder: "name: path", key: checkDetailName, value: JSONPath.singleProblem),
        doc: "Details of each item by name, e.g. {score: score}")
    static let keep = FeedOption<Int>(
        "keep", .integer(1...10_000), default: 500, doc: "How many of the newest items the feed keeps")

    package static let options: [any OptionDeclaration] = [
        url, headers, items, id, title, date, link, group, details, keep,
    ]

    /// The headers monitor sets itself.
    @Sendable static func checkHeaderName(_ name: String) -> String? {
        HTTPHeaders.problem(
            name: name,
            reserved: ["host", "user-agent", "connection", "transfer-encoding", "if-none-match", "if-modified-since"])
    }

    /// A detail's name: a lower-case word (`score`, `up_votes`).
    @Sendable static func checkDetailName(_ name: String) -> String? {
        guard let first = name.first, first.isLowercase, first.isASCII,
            name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") })
        else { return "a detail's name is a lower-case word: letters, digits and '_'" }
        return nil
    }

    let options: FeedOptions

    package init(options: FeedOptions) {
        self.options = options
    }

    /// An API lists its latest items: those it drops are kept, up to `keep`.
    package var retention: ItemRetention { .keepNewest(options[Self.keep]) }

    package func poll(_ context: PollContext, _ found: Findings) async throws {
        let (url, response) = try await fetch(context.http)
        if response.status == 304 { return found.unchanged() }
        do {
            let reading = try JSONAPIItems(options: options, feed: context.feed, now: context.clock.now.date)
            try reading.report(JSONValue.read(response.body), to: found)
        } catch {
            // Its validators must not make the next answer a 304 for a body that could not be read.
            context.http.forget(url, credential: credential)
            throw SourceError("GET \(url): \(error)")
        }
    }

    /// The API answers with JSON in which `items` finds items (one GET).
    package func checkOnline(_ context: OnlineCheckContext) async -> OnlineCheck {
        do {
            let (_, response) = try await fetch(context.http)
            let path = try JSONPath(options[Self.items] ?? "")
            let count = try path.values(in: JSONValue.read(response.body)).count
            return .ok("\(count == 1 ? "1 item" : "\(count) items") at '\(path)'")
        } catch let error as FetchError {
            return .failed(error)
        } catch {
            return .wrong("\(error)")
        }
    }

    /// GETs the API with the feed's headers.
    private func fetch(_ http: FeedHTTP) async throws -> (String, HTTPResponse) {
        let url = options[Self.url] ?? ""
        let fields = (options[Self.headers] ?? [:]).sorted { $0.key < $1.key }
        return (url, try await http.get(url, headers: HTTPHeaders(fields), credential: credential))
    }

    /// The headers' values, one a line: the secrets the request carries.
    private var credential: String? {
        let values = (options[Self.headers] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: "\n")
    }
}
