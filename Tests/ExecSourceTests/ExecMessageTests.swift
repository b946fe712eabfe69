import Foundation
import MonitorItems
import Testing

@testable import ExecSource
@testable import MonitorCore
@testable import MonitorJSON

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
            (
                #"{"gap":{"message":"the log rotated:\u001b[2J lines before 10:00 are gone"}}"#,
                .gap(message: "the log rotated: lines before 10:00 are gone")
            ),
        ])
    func messages(line: String, expected: ExecMessage) throws {
        #expect(try parse(line).get() == expected)
    }

    @Test(
        "a line that is not a message says what is wrong",
        arguments: [
            ("hello", "not JSON (unexpected 'h' at byte 1): 'hello'"),
            (#"{"unchanged":true"#, #"not JSON (the line ends inside a value): '{"unchanged":true'"#),
            (
                #"{"unchanged":true}x"#,
                #"not JSON (unexpected 'x' after the document at byte 19): '{"unchanged":true}x'"#
            ),
            ("[1,2]", "not a JSON object: '[1,2]'"),
            ("[1,2", "not JSON (the line ends inside a value): '[1,2'"),
            (
                "{}",
                "a message has exactly one key (one of group, progress, item, failure, unchanged, cursor, gap), found none"
            ),
            (
                #"{"group":{"id":"a"},"progress":{"done":1}}"#,
                #"a message has exactly one key (one of group, progress, item, failure, unchanged, cursor, gap), found "group", "progress""#
            ),
            (
                #"{"itme":{}}"#,
                #"unknown message "itme" (did you mean "item"? expected one of group, progress, item, failure, unchanged, cursor, gap)"#
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
            (#"{"gap":"rotated"}"#, #""gap" must be an object"#),
            (#"{"gap":{}}"#, #"gap needs "message", a text that is not empty"#),
            (#"{"gap":{"message":" "}}"#, #"gap needs "message", a text that is not empty"#),
            (#"{"gap":{"mesage":"rotated"}}"#, #"unknown key "mesage" in gap (did you mean "message"?)"#),
            (
                #"{"cursor":"page=2\u0000rest"}"#,
                #"the cursor holds a NUL character (\u0000) at byte 7, which MONITOR_CURSOR cannot carry"#
            ),
            (
                #"{"cursor":""# + String(repeating: "x", count: 65537) + #""}"#,
                "the cursor has 65537 bytes, more than 65536 (64 KiB)"
            ),
        ])
    func problems(line: String, expected: String) {
        #expect(parse(line).failure == expected)
    }

    @Test(
        "a key met twice in one object is an error naming it, wherever the object is",
        arguments: [
            (#"{"cursor":"a","cursor":"b"}"#, #"duplicate key "cursor" in the message"#),
            (#"{"unchanged":true,"item":{},"unchanged":true}"#, #"duplicate key "unchanged" in the message"#),
            (#"{"group":{"id":"m5","title":"A","title":"B"}}"#, #"duplicate key "title" in group"#),
            (#"{"group":{"id":"m5","i\u0064":"m6"}}"#, #"duplicate key "id" in group"#),
            (#"{"progress":{"done":1,"done":2}}"#, #"duplicate key "done" in progress"#),
            (#"{"failure":{"what":"x","message":"y","what":"z"}}"#, #"duplicate key "what" in failure"#),
            (
                #"{"item":{"id":"a","title":"t","date":"2025-09-21T18:00:00Z","title":"u"}}"#,
                #"duplicate key "title" in item"#
            ),
            (
                #"{"item":{"id":"a","title":"t","date":"2025-09-21T18:00:00Z","groups":[],"groups":["x"]}}"#,
                #"duplicate key "groups" in item"#
            ),
            (
                #"{"item":{"id":"a","title":"t","date":"2025-09-21T18:00:00Z","details":{"mag":"5","depth":1,"mag":"6"}}}"#,
                #"duplicate key "mag" in item "details""#
            ),
            (
                #"{"item":{"id":"a","title":"t","date":"2025-09-21T18:00:00Z","details":{"mag":null,"mag":"6"}}}"#,
                #"duplicate key "mag" in item "details""#
            ),
            // Two names that differ only by a control character are one name once it is removed.
            (
                #"{"item":{"id":"a","title":"t","date":"2025-09-21T18:00:00Z","details":{"a":"1","a\u0001":"2"}}}"#,
                #"duplicate key "a" in item "details""#
            ),
            (
                #"{"item":{"id":"a","title":"t","date":"2025-09-21T18:00:00Z","details":{"a\u001b[1m":"1","a":"2"}}}"#,
                #"duplicate key "a" in item "details""#
            ),
        ])
    func duplicateKeys(line: String, expected: String) {
        #expect(parse(line).failure == expected)
    }

    @Test(
        "a date that is not a day of the calendar is refused with why, never read as another day",
        arguments: [
            ("2025-02-30T18:00:00Z", "February 2025 has 28 days"),
            ("2025-02-29T18:00:00Z", "February 2025 has 28 days"),
            ("2100-02-29T18:00:00Z", "February 2100 has 28 days"),
            ("2025-04-31T18:00:00Z", "April 2025 has 30 days"),
            ("2025-09-21T24:00:00Z", "there is no hour 24"),
            ("2025-09-21T18:60:00Z", "there is no minute 60"),
            ("2025-09-21T18:00:61Z", "there is no second 61"),
            (
                "2025-09-21T18:00:60Z",
                "second 60 is a leap second, only at 23:59:60 UTC on the last day of a month"
            ),
            ("2025-13-01T18:00:00Z", "there is no month 13"),
            ("2025-09-00T18:00:00Z", "there is no day 00"),
        ])
    func impossibleDates(date text: String, reason: String) {
        #expect(
            parse(#"{"item":{"id":"a","title":"t","date":"\#(text)"}}"#).failure
                == #"item 'a': "date" is not a date of the calendar (\#(reason)): '\#(text)'"#)
    }

    @Test(
        "dates at the calendar's edges are read as written",
        arguments: [
            ("2024-02-29T18:00:00Z", 1_709_229_600.0),
            ("2000-02-29T00:00:00Z", 951_782_400.0),
            ("2016-12-31T23:59:60Z", 1_483_228_799.0),
            ("2017-01-01T00:59:60+01:00", 1_483_228_799.0),
            ("2025-09-21T20:00:00+02:00", 1_758_477_600.0),
            ("2025-09-21T18:00:00.5z", 1_758_477_600.5),
        ])
    func edgeDates(date text: String, seconds: Double) throws {
        let message = try parse(#"{"item":{"id":"a","title":"t","date":"\#(text)"}}"#).get()
        guard case .item(let item) = message else { throw ExecMessage.Problem("not an item") }
        #expect(item.date.timeIntervalSince1970 == seconds)
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
