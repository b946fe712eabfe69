import Foundation
import MonitorConcurrency
import MonitorItems
import MonitorOptions

@testable import MonitorCore

/// A source whose poll is scripted by the test: it GETs each URL in `urls` (one at a time, or all at once with
/// `parallel: true`) and turns every 200 whose body is a number N into items `"<last path part>-<n>"` for n
/// below N, in the group named by that path part; `catalog` groups are announced first. Any other answer
/// (a 304) leaves the group unchanged. A 404 fails the poll; any other failure fails only that URL's group.
package struct ScriptedSource: FeedSource {
    package static let type = "scripted"
    package static let summary = "A scripted source"
    static let urls = FeedOption<[String]?>("urls", .list(placeholder: "urls"), doc: "URLs to GET")
    static let mode = FeedOption<String>("mode", .choice(["replace", "keep"]), default: "replace", doc: "Retention")
    static let catalog = FeedOption<[String]?>("catalog", .list(placeholder: "groups"), doc: "Groups announced first")
    static let parallel = FeedOption<Bool>("parallel", .boolean, default: false, doc: "Fetch the URLs concurrently")
    package static let options: [any OptionDeclaration] = [urls, mode, catalog, parallel]
    let options: FeedOptions

    package init(options: FeedOptions) { self.options = options }

    package var retention: ItemRetention { options[Self.mode] == "keep" ? .keepNewest(3) : .replace }

    package func poll(_ context: PollContext, _ found: Findings) async throws {
        let urls = options[Self.urls] ?? []
        let catalog = options[Self.catalog] ?? []
        let limit = options[Self.parallel] ? context.concurrency : 1
        if !catalog.isEmpty {
            found.groups(catalog.map { ItemGroup(id: $0, title: $0.uppercased()) })
        }
        var done = 0
        try await mergeBounded(urls, limit: limit, { try await Self.fetch($0, context: context, found) }) { _ in
            done += 1
            found.progress(done: done, total: urls.count)
        }
    }

    private static func fetch(_ url: String, context: PollContext, _ found: Findings) async throws {
        let group = String(url.split(separator: "/").last ?? "")
        do {
            let response = try await context.http.get(url)
            guard response.status == 200 else {
                return found.unchanged(groups: [group])
            }
            let count = Int(String(decoding: response.body, as: UTF8.self)) ?? 0
            found.items(
                (0..<count).map {
                    Item(
                        id: "\(group)-\($0)", title: "\(group) \($0)",
                        date: Date(timeIntervalSince1970: Double(1_000_000 + $0)), groups: [group])
                })
            found.completed([group])
        } catch let error as FetchError where !error.isFatal {
            found.failed("group '\(group)'", "\(error)", group: group)
        }
    }
}

extension FetchError {
    /// For the scripted source, a 404 fails the whole poll; anything else only its sub-request.
    var isFatal: Bool {
        if case .status(404, _) = reason { return true }
        return false
    }
}
