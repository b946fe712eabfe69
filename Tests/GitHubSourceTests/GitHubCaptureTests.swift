import Foundation
import TestSupport
import Testing

@testable import GitHubSource
@testable import MonitorCore

/// Real GitHub answers captured by the team, beside the package (`../shared/api-samples`); absent on most
/// machines, where these tests are skipped. They are read, never copied into the project.
private enum Captures {
    /// The names of the GitHub captures ending in `suffix`, sorted.
    static func named(_ suffix: String) -> [String] {
        SharedSamples.files(in: SharedSamples.apiSamples).filter { $0.hasPrefix("github-") && $0.hasSuffix(suffix) }
    }

    /// The JSON captures of events: a list of events, or a single event.
    static var events: [String] {
        named(".json").filter { name in
            let json = try? self.json(name)
            return json is [[String: Any]] || (json as? [String: Any])?["type"] is String
        }
    }

    /// The JSON captures of repository searches.
    static var searches: [String] {
        named(".json").filter { name in ((try? json(name)) as? [String: Any])?["items"] is [[String: Any]] }
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: try #require(SharedSamples.apiSamples).appendingPathComponent(name))
    }

    static func json(_ name: String) throws -> Any {
        try JSONSerialization.jsonObject(with: data(name))
    }

    /// The response headers of a `.txt` capture: the `Name: value` lines after its `HTTP nnn` line.
    static func headers(_ name: String) throws -> HTTPHeaders {
        let text = String(decoding: try data(name), as: UTF8.self)
        var headers = HTTPHeaders()
        var inResponse = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("HTTP ") {
                inResponse = true
            } else if inResponse {
                guard let colon = line.firstIndex(of: ":"), !line.isEmpty else { break }
                headers.add(
                    String(line[..<colon]),
                    String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
            }
        }
        return headers
    }
}

@Suite(
    "The captured GitHub answers in ../shared/api-samples decode",
    .enabled(if: SharedSamples.apiSamples != nil, "../shared/api-samples (beside the package) is absent"))
struct GitHubCaptureTests {
    @Test("the captures of events and searches are found")
    func found() {
        #expect(Captures.events.count == 4)
        #expect(Captures.searches.count == 2)
    }

    @Test("every captured event becomes an item with a sentence and a GitHub link", arguments: Captures.events)
    func events(name: String) throws {
        // A single event is decoded as a page of one.
        let json = try Captures.json(name)
        let elements = try #require(json as? [[String: Any]] ?? (json as? [String: Any]).map { [$0] })
        #expect(!elements.isEmpty)
        let body = try JSONSerialization.data(withJSONObject: elements)
        let events = try GitHubEvent.page(Array(body))
        #expect(events.count == elements.count)
        let items = events.compactMap { $0?.item(web: "https://github.com") }
        #expect(items.map(\.id) == elements.map { $0["id"] as? String })
        #expect(items.map(\.groups) == elements.map { [$0["type"] as? String ?? "?"] })
        for item in items {
            #expect(!item.title.isEmpty)
            #expect(!item.title.contains(": \(item.groups[0]) in "), "a known type without its sentence: \(item.title)")
            #expect(item.url?.hasPrefix("https://github.com/") == true)
        }
    }

    @Test("the captured searches give their repositories' names", arguments: Captures.searches)
    func searches(name: String) throws {
        let object = try #require(try Captures.json(name) as? [String: Any])
        let found = try #require(object["items"] as? [[String: Any]])
        let names = try GitHubPoll.repositories(in: Array(try Captures.data(name)))
        #expect(names == found.map { $0["full_name"] as? String })
        #expect(!names.isEmpty)
    }

    @Test("known captures make the expected sentences and links")
    func known() throws {
        let push = try GitHubEvent.page(
            Array("[".utf8) + Array(try Captures.data("github-push-event-post-2025-10-octocrab.json")) + Array("]".utf8)
        )
        let pushItem = try #require(push.first??.item(web: "https://github.com"))
        #expect(pushItem.title == "orhanarifoglu pushed to master")
        #expect(
            pushItem.url
                == "https://github.com/orhanarifoglu/orhanarifoglu/compare/9b2afb3a8e03fb30cc09e5efb64823bde802cf59...eb1a60c03544dcea290f2d57bb66ae188ce25778"
        )
        let pull = try GitHubEvent.page(
            Array("[".utf8) + Array(try Captures.data("github-pull-request-event-post-2025-10-octocrab-730b70f.json"))
                + Array("]".utf8))
        let pullItem = try #require(pull.first??.item(web: "https://github.com"))
        #expect(pullItem.title == "wayofthepie opened pull request #8 in wayofthepie/test-events")
        #expect(pullItem.url == "https://github.com/wayofthepie/test-events/pull/8")
        let search = try GitHubPoll.repositories(
            in: Array(try Captures.data("github-search-repositories-language-swift-2020-01.json")))
        #expect(search == ["vsouza/awesome-ios", "Alamofire/Alamofire"])
    }

    @Test("the captured headers give the next page, the validators and the rate limit")
    func headers() throws {
        let events = try Captures.headers("github-events-public-2020-04-25-headers.txt")
        #expect(
            LinkHeader.url("next", in: events["Link"], relativeTo: "https://api.github.com/events")
                == "https://api.github.com/events?page=2")
        #expect(events["ETag"]?.hasPrefix("W/\"") == true)
        #expect(events["X-Poll-Interval"] == "60")
        let limit = try #require(RateLimit(headers: events))
        #expect((limit.limit, limit.remaining) == (60, 58))
        #expect(limit.reset == Date(timeIntervalSince1970: 1_587_820_042))

        let exhausted = try #require(RateLimit(headers: try Captures.headers("github-403-primary-rate-limit-2013.txt")))
        #expect(exhausted.remaining == 0)
        let secondary = try Captures.headers("github-403-secondary-rate-limit-2018.txt")
        #expect(secondary["retry-after"] == "60")
        let modern = HTTPResponse(
            status: 200, headers: try Captures.headers("github-modern-response-headers-2026-01-07.txt"))
        #expect(RateLimit(headers: modern.headers)?.resource == nil)
        #expect(GitHubSource.httpPolicy.rateLimitResource(of: modern) == "code_search")
    }
}
