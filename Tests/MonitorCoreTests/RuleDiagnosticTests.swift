import MonitorText
import Testing

@testable import MonitorCore
@testable import MonitorRules

@Suite("Rules: errors rendered like every other diagnostic of feeds.yaml, at the token")
struct RuleDiagnosticTests {
    static let details = ["status", "magnitude_value", "magnitude_unit", "lat", "lon"]

    /// The error of `rule` written on line 4 of a feeds file, where it starts at column 12.
    static func rendered(_ rule: String) -> String {
        let source = "feeds:\n  - name: fires\n    type: eonet\n    where: \(rule)\n"
        do {
            _ = try Rule(rule, details: details)
            return "no error"
        } catch {
            return DiagnosticRenderer(path: "feeds.yaml", source: source)
                .render([error.diagnostic(startingAt: SourceLocation(line: 4, column: 12))])
        }
    }

    @Test("a syntax error says what was expected")
    func syntax() {
        #expect(
            Self.rendered(#"group == "wildfires" and"#) == """
                feeds.yaml:4:36: error: expected a field, 'not', '(', near(…) or within(…), found the end of the rule
                    where: group == "wildfires" and
                                                   ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"group "wildfires""#) == """
                feeds.yaml:4:18: error: expected an operator after 'group' (==, !=, <, <=, >, >=, ~, !~ or in), found a text
                    where: group "wildfires"
                                 ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"(status == "open" or age < 2d"#) == """
                feeds.yaml:4:41: error: expected 'and', 'or' or ')', found the end of the rule
                    where: (status == "open" or age < 2d
                                                        ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"status = "open""#) == """
                feeds.yaml:4:19: error: '=' is not an operator: write '==' to compare
                    where: status = "open"
                                  ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"title ~ "fire"#) == """
                feeds.yaml:4:20: error: this text is not closed by '"'
                    where: title ~ "fire
                                   ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"status == "open" "closed""#) == """
                feeds.yaml:4:29: error: expected 'and', 'or' or the end of the rule, found a text
                    where: status == "open" "closed"
                                            ^
                1 error in feeds.yaml

                """)
    }

    @Test("an unknown field lists the feed's fields and suggests the nearest")
    func unknownField() {
        #expect(
            Self.rendered(#"age < 2d and titel ~ "fire""#) == """
                feeds.yaml:4:25: error: unknown field 'titel' (did you mean 'title'? the fields are: id, title, url, date, age, group, status, magnitude_value, magnitude_unit, lat, lon)
                    where: age < 2d and titel ~ "fire"
                                        ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered("actor_login == 1") == """
                feeds.yaml:4:12: error: unknown field 'actor_login' (the fields are: id, title, url, date, age, group, status, magnitude_value, magnitude_unit, lat, lon)
                    where: actor_login == 1
                           ^
                1 error in feeds.yaml

                """)
    }

    @Test("comparing a text with a number, or a field with the wrong kind of value, says why")
    func kinds() {
        #expect(
            Self.rendered("title > 5") == """
                feeds.yaml:4:20: error: cannot compare 'title', a text, with a number (a text is compared with a text in double quotes)
                    where: title > 5
                                   ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"group in ["wildfires", 5]"#) == """
                feeds.yaml:4:35: error: a list holds texts or numbers, not both
                    where: group in ["wildfires", 5]
                                                  ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"age < "2d""#) == """
                feeds.yaml:4:18: error: cannot compare 'age' with a text: write a duration, like 2d or 90s
                    where: age < "2d"
                                 ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"title < "m""#) == """
                feeds.yaml:4:18: error: '<' compares numbers, dates and durations: 'title' compared with a text takes ==, !=, ~, !~ or in
                    where: title < "m"
                                 ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"date > "yesterday""#) == """
                feeds.yaml:4:19: error: 'yesterday' is not a date (write 2026-01-31 or 2026-01-31T12:00:00Z)
                    where: date > "yesterday"
                                  ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered("age < 2w") == """
                feeds.yaml:4:18: error: '2w' is neither a number, a duration (like 90s, 15m, 2d) nor a distance (like 500km, 30mi)
                    where: age < 2w
                                 ^
                1 error in feeds.yaml

                """)
    }

    @Test("a regular expression that does not compile is an error at its offending character, with the reason")
    func regex() {
        #expect(
            Self.rendered(#"title ~ "(?i)(fire""#) == """
                feeds.yaml:4:25: error: invalid regular expression: '(' is not closed by ')'
                    where: title ~ "(?i)(fire"
                                        ^
                1 error in feeds.yaml

                """)
        // The pattern `\[bot\]\1` is written with each backslash doubled: the caret is at the `\1`'s first one.
        #expect(
            Self.rendered(#"status ~ "\\[bot\\]\\1""#) == #"""
                feeds.yaml:4:31: error: invalid regular expression: '\1' is not supported (no backreferences or word boundaries)
                    where: status ~ "\\[bot\\]\\1"
                                              ^
                1 error in feeds.yaml

                """#)
        #expect(
            Self.rendered(#"title ~ "(?=fire)""#) == """
                feeds.yaml:4:21: error: invalid regular expression: only (?:…) groups and (?i) at the start are supported (no lookaround, named groups or flags)
                    where: title ~ "(?=fire)"
                                    ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"title ~ "a{2000}""#) == """
                feeds.yaml:4:22: error: invalid regular expression: a count in {m,n} is at most 1000
                    where: title ~ "a{2000}"
                                     ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"title ~ "(a{1000}){1000}""#) == """
                feeds.yaml:4:21: error: invalid regular expression: the regular expression is too large: more than 10000 steps once its repetitions are written out and each member of a class is counted
                    where: title ~ "(a{1000}){1000}"
                                    ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered(#"title ~ "a**""#) == """
                feeds.yaml:4:23: error: invalid regular expression: a quantifier cannot follow another (lazy and possessive quantifiers are not supported)
                    where: title ~ "a**"
                                      ^
                1 error in feeds.yaml

                """)
    }

    @Test("near and within check their arguments")
    func places() {
        #expect(
            Self.rendered("near(34.05, -118.25, 500)") == """
                feeds.yaml:4:33: error: expected a distance like 500km or 30mi in near(LATITUDE, LONGITUDE, DISTANCE), found a number (add a unit: km or mi)
                    where: near(34.05, -118.25, 500)
                                                ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered("within(10, 0, 95, 20)") == """
                feeds.yaml:4:26: error: a latitude is from -90 to 90 degrees, not 95
                    where: within(10, 0, 95, 20)
                                         ^
                1 error in feeds.yaml

                """)
        #expect(
            Self.rendered("within(10, 0, -5, 20)") == """
                feeds.yaml:4:19: error: in within(SOUTH, WEST, NORTH, EAST) the south (10) is north of the north (-5)
                    where: within(10, 0, -5, 20)
                                  ^
                1 error in feeds.yaml

                """)
    }
}
