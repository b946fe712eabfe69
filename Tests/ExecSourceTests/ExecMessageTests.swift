import Foundation
import MonitorCore
import Testing

@testable import ExecSource

/// The message of `line`, or what is wrong with it.
private func parse(_ line: String) -> Result<ExecMessage, ExecMessage.Problem> {
    Result { () throws(ExecMessage.Problem) in try ExecMessage(line: Array(line.utf8)) }
}

private let date = ISO8601.date("2025-09-21T18:00:00Z")!

@Suite("The exec protocol, version 1: one JSON object per line")
struct ExecMessageTests {
    @Test(
        "each message of the protocol",
        arguments: [
            (
                #"{"group":{"id":"m5","title":"Magnitude 5+"}}"#,
                ExecMessage.group(ItemGroup(id: "m5", title: "Magnitude 5+"))
            ),
            (#"{"group":{"id":"m5"}}"#, .group(ItemGroup(id: "m5", title: "m5"))),
            (#"{"progress":{"done":1,"total":4}}"#, .progress(done: 1, total: 4)),
            (#"{"progress":{"done":2,"total":null}}"#, .progress(done: 2, total: nil)),
            (
                #"{"item":{"id":"q1","title":"M 5.2 - Fiji","date":"2025-09-21T18:00:00Z","groups":["m5"],"url":"https://x.test/q1","details":{"mag":"5.2","depth":10,"felt":true}}}"#,
                .item(
                    Item(
                        id: "q1", title: "M 5.2 - Fiji", date: date, groups: ["m5"], url: "https://x.test/q1",
                        details: [Detail("depth", "10"), Detail("felt", "true"), Detail("mag", "5.2")]))
            ),
            (
                #"{"item":{"id":"q2","title":"Quake \u001b[2Jnear\u0007 you","date":"2025-09-21T18:00:00.250Z"}}"#,
                .item(Item(id: "q2", title: "Quake near you", date: date.addingTimeInterval(0.25), groups: []))
            ),
            (
                #"{"failure":{"what":"band m5","message":"HTTP 503","group":"m5"}}"#,
                .failure(SubRequestFailure(what: "band m5", message: "HTTP 503", group: "m5"))
            ),
            (#"{"unchanged":true}"#, .unchanged),
            (#"{"cursor":"etag=\"abc\""}"#, .cursor(#"etag="abc""#)),
        ])
    func messages(line: String, expected: ExecMessage) throws {
        #expect(try parse(line).get() == expected)
    }

    @Test(
        "a line that is not a message says what is wrong",
        arguments: [
            ("hello", "not JSON (Invalid value around character 0.): 'hello'"),
            ("[1,2]", "not a JSON object: '[1,2]'"),
            (
                "{}",
                "a message has exactly one key (one of group, progress, item, failure, unchanged, cursor), found none"
            ),
            (
                #"{"group":{"id":"a"},"progress":{"done":1}}"#,
                #"a message has exactly one key (one of group, progress, item, failure, unchanged, cursor), found "group", "progress""#
            ),
            (
                #"{"itme":{}}"#,
                #"unknown message "itme" (did you mean "item"? expected one of group, progress, item, failure, unchanged, cursor)"#
            ),
            (#"{"group":"m5"}"#, #""group" must be an object"#),
            (
                #"{"item":{"id":"a","title":"t"}}"#,
                #"item 'a' needs "date", an ISO 8601 date like 2025-09-21T18:00:00Z"#
            ),
            (
                #"{"item":{"id":"a","title":"t","date":"yesterday"}}"#,
                #"item 'a': "date" is not an ISO 8601 date like 2025-09-21T18:00:00Z: 'yesterday'"#
            ),
            (
                #"{"item":{"id":" ","title":"t","date":"2025-09-21T18:00:00Z"}}"#,
                #"item needs "id", a text that is not empty"#
            ),
            (#"{"item":{"id":"a","date":"2025-09-21T18:00:00Z"}}"#, #"item 'a' needs "title", a text"#),
            (
                #"{"item":{"id":"a","title":"t","date":"2025-09-21T18:00:00Z","tittle":"x"}}"#,
                #"unknown key "tittle" in item (did you mean "title"?)"#
            ),
            (
                #"{"item":{"id":"a","title":"t","date":"2025-09-21T18:00:00Z","groups":"m5"}}"#,
                #"item "groups" must be a list of texts"#
            ),
            (
                #"{"item":{"id":"a","title":"t","date":"2025-09-21T18:00:00Z","details":{"x":[1]}}}"#,
                #"item detail "x" must be a text, a number or a boolean"#
            ),
            (#"{"progress":{"done":-1}}"#, #"progress "done" must be a whole number ≥ 0"#),
            (#"{"progress":{"done":true}}"#, #"progress "done" must be a whole number ≥ 0"#),
            (#"{"progress":{"total":3}}"#, #"progress needs "done", a count"#),
            (#"{"failure":{"what":"x"}}"#, #"failure needs "what" and "message", texts"#),
            (#"{"unchanged":false}"#, #""unchanged" takes only true"#),
            (#"{"unchanged":1}"#, #""unchanged" takes only true"#),
            (#"{"cursor":5}"#, #""cursor" must be a text"#),
            (
                #"{"cursor":""# + String(repeating: "x", count: 65537) + #""}"#,
                "the cursor has 65537 bytes, more than 65536 (64 KiB)"
            ),
        ])
    func problems(line: String, expected: String) {
        #expect(parse(line).failure == expected)
    }

    @Test("a cursor of exactly 64 KiB is accepted")
    func largestCursor() throws {
        let cursor = String(repeating: "y", count: 65536)
        #expect(try parse(#"{"cursor":""# + cursor + #""}"#).get() == .cursor(cursor))
    }
}

extension Result where Failure == ExecMessage.Problem {
    /// The problem's message, or nil for a message.
    fileprivate var failure: String? {
        if case .failure(let problem) = self { problem.message } else { nil }
    }
}
