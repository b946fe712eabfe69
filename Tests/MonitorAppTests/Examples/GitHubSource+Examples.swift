import MonitorCore
import TestSupport

@testable import GitHubSource

// MARK: - Examples

extension GitHubSource {
    /// Recorded answers and what the source must make of them: a repository's events, a poll answered 304
    /// (the stored events stay), newer events added to the stored ones; a search whose one repository fails.
    static var examples: [SourceExample] {
        let api = "http://github.example"
        let events = "\(api)/repos/octo/hello/events?per_page=50"
        let watch = Example(id: "101", type: "WatchEvent", repo: "octo/hello", time: "2026-11-01T10:00:00Z")
        let fork = Example(id: "102", type: "ForkEvent", repo: "octo/hello", time: "2026-11-01T11:00:00Z")
        let star = Example(id: "103", type: "WatchEvent", repo: "octo/hello", time: "2026-11-02T09:00:00Z")
        let search = "\(api)/search/repositories?q=hello&sort=stars&order=desc&per_page=2"
        let found = SourceExample.json(
            #"{"total_count":2,"items":[{"full_name":"octo/hello"},{"full_name":"octo/gone"}]}"#, etag: #""s1""#)
        return [
            SourceExample(
                "a repository: its events, a 304 that keeps them, then a new one added",
                options: ["api": .string(api), "repo": .string("octo/hello")],
                polls: [
                    SourceExample.Poll(
                        answers: [events: SourceExample.json(Example.page([fork, watch]), etag: #""e1""#)],
                        expect: .init(
                            status: .ok, items: ["102", "101"], groups: ["WatchEvent": 1, "ForkEvent": 1], new: 2)),
                    SourceExample.Poll(
                        answers: [events: SourceExample.notModified],
                        expect: .init(
                            status: .notModified, items: ["102", "101"], groups: ["WatchEvent": 1, "ForkEvent": 1],
                            new: 0)),
                    SourceExample.Poll(
                        answers: [events: SourceExample.json(Example.page([star, fork, watch]), etag: #""e2""#)],
                        expect: .init(
                            status: .ok, items: ["103", "102", "101"], groups: ["WatchEvent": 2, "ForkEvent": 1],
                            new: 1)),
                ]),
            SourceExample(
                "a search: one repository gone, the other's events counted",
                options: ["api": .string(api), "search": .string("hello"), "top": .integer(2)],
                polls: [
                    SourceExample.Poll(
                        answers: [
                            search: found,
                            events: SourceExample.json(Example.page([watch]), etag: #""e1""#),
                            "\(api)/repos/octo/gone/events?per_page=50": SourceExample.error(404, "Not Found"),
                        ],
                        expect: .init(status: .partial, items: ["101"], groups: ["WatchEvent": 1], new: 1))
                ]),
        ]
    }

    /// One event of an example, written as the server writes it.
    private struct Example {
        var id: String
        var type: String
        var repo: String
        var time: String

        var json: String {
            #"{"id":"\#(id)","type":"\#(type)","actor":{"login":"ana"},"repo":{"name":"\#(repo)"},"#
                + #""payload":{"action":"started"},"public":true,"created_at":"\#(time)"}"#
        }

        static func page(_ events: [Example]) -> String { "[" + events.map(\.json).joined(separator: ",") + "]" }
    }
}
