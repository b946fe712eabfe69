import Foundation
import MonitorCore

/// A source whose poll is scripted by the test: it GETs each URL in `urls` (one at a time, or all at once with
/// `parallel: true`) and turns every 200 whose body is a number N into items `"<last path part>-<n>"` for n
/// below N, in the group named by that path part; `catalog` groups are announced first. A 404 fails the poll;
/// any other failure fails only that URL's group.
public struct ScriptedSource: FeedSource {
    public static let type = "scripted"
    public static let summary = "A scripted source"
    public static let options: [OptionSpec] = [
        OptionSpec("urls", .list(placeholder: "urls"), doc: "URLs to GET"),
        OptionSpec("mode", .choice(["replace", "keep"]), default: .string("replace"), doc: "Retention"),
        OptionSpec("catalog", .list(placeholder: "groups"), doc: "Groups announced first"),
        OptionSpec("parallel", .boolean, default: .boolean(false), doc: "Fetch the URLs concurrently"),
    ]
    let options: FeedOptions

    public init(options: FeedOptions) { self.options = options }

    public var retention: ItemRetention { options.string("mode") == "keep" ? .keepNewest(3) : .replace }

    public func poll(_ context: PollContext) -> AsyncThrowingStream<SourceUpdate, any Error> {
        let urls = options.list("urls") ?? []
        let catalog = options.list("catalog") ?? []
        let limit = options.boolean("parallel") == true ? context.concurrency : 1
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    if !catalog.isEmpty {
                        continuation.yield(.groups(catalog.map { ItemGroup(id: $0, title: $0.uppercased()) }))
                    }
                    var done = 0
                    for try await updates in mergeBounded(
                        urls, limit: limit, { try await Self.fetch($0, context: context) })
                    {
                        for update in updates { continuation.yield(update) }
                        done += 1
                        continuation.yield(.progress(done: done, total: urls.count))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private static func fetch(_ url: String, context: PollContext) async throws -> [SourceUpdate] {
        let group = String(url.split(separator: "/").last ?? "")
        do {
            let response = try await context.http.get(url)
            guard response.status == 200 else {
                return [.items(context.stored.items.filter { $0.groups.contains(group) }), .completed(groups: [group])]
            }
            let count = Int(String(decoding: response.body, as: UTF8.self)) ?? 0
            let items = (0..<count).map {
                Item(
                    id: "\(group)-\($0)", title: "\(group) \($0)",
                    date: Date(timeIntervalSince1970: Double(1_000_000 + $0)),
                    groups: [group])
            }
            return [.items(items), .completed(groups: [group])]
        } catch let error as FetchError where !error.isFatal {
            return [.failure(SubRequestFailure(what: "group '\(group)'", message: "\(error)", group: group))]
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
