import MonitorCore
import MonitorOptions
import TestSupport

@testable import JSONAPISource

// MARK: - Examples

extension JSONAPISource {
    /// Recorded answers of a Reddit-like listing and what the source must make of them: a first poll, a 304, an item
    /// without an id (a failed part), and a path that finds nothing (the poll fails, what was stored stays).
    static var examples: [SourceExample] {
        let url = "http://api.example/r/swift.json"
        let options: [String: OptionValue] = [
            "url": .string(url), "items": .string("data.children[*].data"), "id": .string("name"),
            "date": .string("created_utc"), "link": .string("url"), "group": .string("flair"),
            "details": .mapping(["score": "score"]),
        ]
        let post = { (name: String, created: Int, flair: String) in
            #"{"kind":"t3","data":{"name":"\#(name)","title":"Post \#(name)","created_utc":\#(created),"url":"https://example.org/\#(name)","flair":"\#(flair)","score":5}}"#
        }
        let listing = { (posts: [String]) in
            #"{"kind":"Listing","data":{"children":[\#(posts.joined(separator: ","))]}}"#
        }
        let first = SourceExample.Poll(
            answers: [
                url: SourceExample.json(
                    listing([post("t3_b", 1_790_000_100, "News"), post("t3_a", 1_790_000_000, "Help")]), etag: #""l1""#)
            ],
            expect: .init(status: .ok, items: ["t3_b", "t3_a"], groups: ["News": 1, "Help": 1], new: 2))
        return [
            SourceExample(
                "a listing, a 304, then a new post and one without its id",
                options: options,
                polls: [
                    first,
                    SourceExample.Poll(
                        answers: [url: SourceExample.notModified],
                        expect: .init(
                            status: .notModified, items: ["t3_b", "t3_a"], groups: ["News": 1, "Help": 1], new: 0)),
                    SourceExample.Poll(
                        answers: [
                            url: SourceExample.json(
                                listing([
                                    post("t3_c", 1_790_000_200, "News"), #"{"kind":"t3","data":{"title":"no name"}}"#,
                                ]),
                                etag: #""l2""#)
                        ],
                        expect: .init(
                            status: .partial, items: ["t3_c", "t3_b", "t3_a"], groups: ["News": 2, "Help": 1], new: 1)),
                ]),
            SourceExample(
                "a document in which the items path finds nothing fails the poll, leaving what was stored",
                options: options,
                polls: [
                    first,
                    SourceExample.Poll(
                        answers: [url: SourceExample.json(#"{"error":"moved"}"#, etag: #""e1""#)],
                        expect: .init(status: .failed, items: ["t3_b", "t3_a"], new: 0)),
                ]),
        ]
    }
}
