import Foundation
import MonitorJSON
import Testing

@testable import JSONAPISource

@Suite("json: the path language, and what a path that finds nothing says")
struct JSONPathTests {
    static let document = try! JSONValue.read(
        Array(
            #"{"kind":"Listing","data":{"after":null,"children":[{"data":{"name":"t3_a","tags":["x","y"],"first name":"A"}},{"data":{"name":"t3_b","tags":[]}}]},"ids":[-42,9007199254740993]}"#
                .utf8))

    @Test(
        "paths find their values in document order",
        arguments: [
            ("data.children[*].data.name", [#""t3_a""#, #""t3_b""#]),
            ("data.children[0].data.name", [#""t3_a""#]),
            ("data.children[-1].data.name", [#""t3_b""#]),
            ("data.children[*].data.tags[*]", [#""x""#, #""y""#]),
            (#"data.children[0].data["first name"]"#, [#""A""#]),
            ("kind", [#""Listing""#]),
            ("ids[*]", ["-42", "9007199254740993"]),
        ])
    func finds(_ path: String, _ values: [String]) throws {
        #expect(try JSONPath(path).values(in: Self.document).map(\.text) == values)
    }

    @Test(
        "a path that finds nothing says which step matched nothing and what the document had there",
        arguments: [
            ("data.childs[*].data", "'data.childs' matched nothing: it has 'after', 'children'"),
            ("data.children[5]", "'data.children[5]' matched nothing: data.children is a list of 2"),
            ("data.after.x", "'data.after.x' needs an object: data.after is null"),
            ("kind[*]", "'kind[*]' needs a list: kind is the text \"Listing\""),
            ("data[0]", "'data[0]' needs a list: data is an object"),
            ("nothing", "'nothing' matched nothing: it has 'kind', 'data', 'ids'"),
        ])
    func misses(_ path: String, _ message: String) throws {
        #expect(throws: JSONPathError(message)) { try JSONPath(path).values(in: Self.document) }
    }

    @Test("a [*] over an empty list finds nothing, without error")
    func emptyList() throws {
        #expect(try JSONPath("data.children[1].data.tags[*]").values(in: Self.document).isEmpty)
    }

    @Test(
        "what is not a path says where it stops being one",
        arguments: [
            ("", "a path names at least one member or index"),
            ("data..x", "expected a member's name (letters, digits, _-$@:) at 6; quote others: [\"a b\"]"),
            ("data[x]", "'[' takes an index, '*' or a quoted name, then ']' (at 5)"),
            ("data[0", "'[' takes an index, '*' or a quoted name, then ']' (at 5)"),
            (#"data["a"x"#, "a quoted name ends with '\"]' (at 5)"),
            ("a b", "expected '.' or '[' (at 2)"),
        ])
    func refuses(_ path: String, _ message: String) {
        #expect(JSONPath.problem(path) == message)
    }

    @Test("a field's path finds one value: [*] is refused there")
    func single() {
        #expect(JSONPath.singleProblem("tags[*]") == "'[*]' finds many values; this path finds one")
        #expect(JSONPath.singleProblem("data.name") == nil)
    }

    @Test("a document of more values than the bound is refused, not built")
    func bounded() throws {
        #expect(throws: JSONError.value("more than 3 values: too large to read whole").at(.index(2))) {
            try JSONValue.read(Array("[1,2,3]".utf8), maximumValues: 3)
        }
        #expect(try JSONValue.read(Array("[1,2,3]".utf8), maximumValues: 4).text == "[1,2,3]")
    }
}

@Suite("json: an item's date, as APIs write it")
struct JSONAPIDateTests {
    @Test(
        "ISO 8601, Unix seconds and milliseconds, as numbers or digits",
        arguments: [
            (JSONValue.string("2026-11-18T11:08:20Z"), 1_795_000_100.0),
            (.string("2026-11-18T12:08:20+01:00"), 1_795_000_100),
            (.integer(1_795_000_100), 1_795_000_100),
            (.number(1_795_000_100.5), 1_795_000_100.5),
            (.integer(1_795_000_100_250), 1_795_000_100.25),
            (.string(" 1795000100 "), 1_795_000_100),
        ])
    func reads(_ value: JSONValue, _ seconds: Double) {
        #expect(JSONAPIItems.date(value) == Date(timeIntervalSince1970: seconds))
    }

    @Test(
        "what is no date is none", arguments: [JSONValue.string("soon"), .integer(0), .integer(-5), .null, .bool(true)])
    func refuses(_ value: JSONValue) {
        #expect(JSONAPIItems.date(value) == nil)
    }
}
