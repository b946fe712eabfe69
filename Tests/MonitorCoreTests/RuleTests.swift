import Foundation
import MonitorItems
import Testing

@testable import MonitorCore
@testable import MonitorRules

@Suite("Rules: which items an expression keeps")
struct RuleTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    /// A wildfire near Los Angeles, a day old.
    static let fire = Item(
        id: "EONET_1", title: "Wildfire near Los Angeles, California", date: now.addingTimeInterval(-86_400),
        groups: ["wildfires"], url: "https://example.org/fire",
        details: [
            Detail("status", "open"), Detail("lat", "34.1"), Detail("lon", "-118.3"),
            Detail("magnitude_value", "5200.00"), Detail("magnitude_unit", "acres"),
        ])
    /// A storm by Fiji, close to the antimeridian, ten days old.
    static let storm = Item(
        id: "EONET_2", title: "Tropical Cyclone \"Ana\"", date: now.addingTimeInterval(-10 * 86_400),
        groups: ["severeStorms", "floods"],
        details: [
            Detail("status", "closed"), Detail("lat", "-17.5"), Detail("lon", "179.5"),
            Detail("magnitude_value", "35"), Detail("magnitude_unit", "kts"),
        ])
    /// A push by a bot, an hour old: no URL, no position.
    static let push = Item(
        id: "9001", title: "dependabot[bot] pushed to main", date: now.addingTimeInterval(-3600),
        groups: ["PushEvent"], details: [Detail("actor", "dependabot[bot]"), Detail("ref", "main")])
    /// A release, 90 seconds old, with a number that is text in its title.
    static let release = Item(
        id: "9002", title: "Release 6.9 of RxSwift", date: now.addingTimeInterval(-90), groups: ["ReleaseEvent"],
        url: "https://github.com/ReactiveX/RxSwift/releases/6.9",
        details: [Detail("actor", "freak4pc"), Detail("number", "42")])

    static let items = [fire, storm, push, release]

    /// The ids of the items `rule` keeps, checked with any detail allowed.
    static func kept(_ rule: String) throws -> [String] {
        let rule = try Rule(rule, details: nil)
        return items.filter { rule.matches($0, now: now) }.map(\.id)
    }

    @Test(
        "exact results",
        arguments: [
            (#"group == "wildfires""#, ["EONET_1"]),
            (#"group == "floods""#, ["EONET_2"]),
            (#"group != "wildfires""#, ["EONET_2", "9001", "9002"]),
            (#"group in ["PushEvent", "ReleaseEvent"]"#, ["9001", "9002"]),
            (#"group in ["PushEvent", "ReleaseEvent"] and not (actor ~ "\\[bot\\]$")"#, ["9002"]),
            (#"title ~ "(?i)california""#, ["EONET_1"]),
            (#"title ~ "california""#, []),
            (#"title !~ "^Release""#, ["EONET_1", "EONET_2", "9001"]),
            (#"title == "Tropical Cyclone \"Ana\"""#, ["EONET_2"]),
            (#"id == "9001" or id == "9002""#, ["9001", "9002"]),
            (#"url ~ "github\\.com""#, ["9002"]),
            (#"url != "https://example.org/fire""#, ["9002"]),
            ("magnitude_value >= 5 or title ~ \"(?i)california\"", ["EONET_1", "EONET_2"]),
            ("magnitude_value > 35", ["EONET_1"]),
            ("magnitude_value <= 35", ["EONET_2"]),
            ("magnitude_value == 5200", ["EONET_1"]),
            ("magnitude_value != 35", ["EONET_1"]),
            ("magnitude_value in [35, 36]", ["EONET_2"]),
            (#"magnitude_unit == "kts""#, ["EONET_2"]),
            ("number == 42", ["9002"]),
            (#"number == "42""#, ["9002"]),
            ("number < 42.5", ["9002"]),
            ("actor >= 0", []),
            (#"status != "open""#, ["EONET_2"]),
            (#"not status == "open""#, ["EONET_2", "9001", "9002"]),
            ("age < 2d", ["EONET_1", "9001", "9002"]),
            ("age <= 90s", ["9002"]),
            ("age > 1h30m", ["EONET_1", "EONET_2"]),
            (#"date >= "2026-09-12""#, ["EONET_1", "9001", "9002"]),
            (#"date < "2026-09-21T13:00:00Z""#, ["EONET_1", "EONET_2"]),
            ("near(34.05, -118.25, 500km)", ["EONET_1"]),
            ("near(34.05, -118.25, 10km)", ["EONET_1"]),
            ("near(34.05, -118.25, 1km)", []),
            ("near(40.71, -74.0, 2400mi)", []),
            ("near(40.71, -74.0, 2500mi)", ["EONET_1"]),
            ("near(-17, -179.9, 100km)", ["EONET_2"]),
            ("within(30, -125, 40, -110)", ["EONET_1"]),
            ("within(-20, 170, -10, -170)", ["EONET_2"]),
            ("within(-20, -170, -10, 170)", []),
            ("within(-90, -180, 90, 180)", ["EONET_1", "EONET_2"]),
            ("not near(0, 0, 1km)", ["EONET_1", "EONET_2", "9001", "9002"]),
            // `or` binds looser than `and`, `and` looser than `not`.
            (#"group == "wildfires" or group == "PushEvent" and actor == "nobody""#, ["EONET_1"]),
            (#"(group == "wildfires" or group == "PushEvent") and not actor == "nobody""#, ["EONET_1", "9001"]),
            (#"not not group == "wildfires""#, ["EONET_1"]),
            (#"title ~ "^(Wild|Trop)[a-z]+ (fire|Cyclone)\\b?""#, []),
            (#"title ~ "^(Wild|Trop)[a-z]+ (fire|Cyclone)""#, ["EONET_2"]),
            (#"title ~ "Release \\d+\\.\\d""#, ["9002"]),
            (#"actor ~ "^[a-z]{3,10}\\[""#, ["9001"]),
            (#"actor ~ "^[a-z]{3,9}\\[""#, []),
        ])
    func results(rule: String, expected: [String]) throws {
        if rule.contains("\\\\b") {
            // `\b` is not in the subset: the rule is refused.
            #expect(throws: RuleError.self) { try Self.kept(rule) }
            return
        }
        #expect(try Self.kept(rule) == expected)
    }

    @Test("an item without the detail a comparison asks for does not match it, whichever the operator")
    func missingDetail() throws {
        for rule in ["lat == 1", "lat != 1", #"magnitude_unit != "acres""#, #"ref !~ "x""#, #"ref == "main""#] {
            let kept = try Self.kept(rule)
            #expect(kept.allSatisfy { ["EONET_1", "EONET_2", "9001"].contains($0) }, "\(rule)")
        }
        #expect(try Self.kept("lat != 1") == ["EONET_1", "EONET_2"])
        #expect(try Self.kept(#"ref !~ "x""#) == ["9001"])
        #expect(try Self.kept(#"not ref == "main""#) == ["EONET_1", "EONET_2", "9002"])
    }

    @Test("a match too costly to tell matches neither ~ nor !~; a rule reads a text's first 10,000 characters")
    func tooCostly() throws {
        let long = Item(
            id: "long", title: String(repeating: "a", count: 300_000), date: Self.now, groups: [],
            details: [Detail("note", String(repeating: "b", count: 10_000) + "c")])
        for rule in [#"title ~ "(?:.{1000}){9}z""#, #"title !~ "(?:.{1000}){9}z""#, #"note ~ "c""#] {
            #expect(try Rule(rule, details: nil).matches(long, now: Self.now) == false, "\(rule)")
        }
        for rule in [#"note !~ "c""#, #"note ~ "b$""#, #"title ~ "^a""#] {
            #expect(try Rule(rule, details: nil).matches(long, now: Self.now) == true, "\(rule)")
        }
    }

    @Test("== and ~ agree on a decomposed title; a comparison and near() read ' 45 ' alike")
    func agreement() throws {
        let item = Item(
            id: "u", title: "Cafe\u{301} fire", date: Self.now, groups: [],
            details: [Detail("lat", " 45 "), Detail("lon", " -118 ")])
        for rule in [
            #"title == "Caf\#u{E9} fire""#, #"title ~ "Caf\#u{E9} f""#, #"title ~ "^Caf.""#, "lat >= 40",
            "near(45, -118, 1km)", "within(40, -120, 50, -110)",
        ] {
            #expect(try Rule(rule, details: nil).matches(item, now: Self.now), "\(rule)")
        }
    }

    @Test("a detail that is not a number never matches a comparison with a number")
    func textDetailAgainstNumber() throws {
        let item = Item(
            id: "a", title: "t", date: Self.now, groups: [],
            details: [Detail("level", "high"), Detail("count", " 12 "), Detail("inf", "inf")])
        let matches = { (text: String) in try Rule(text, details: nil).matches(item, now: Self.now) }
        #expect(try matches("level > 0") == false)
        #expect(try matches("level != 0") == false)
        #expect(try matches("count == 12") == true)
        #expect(try matches("inf > 0") == false)
    }

    @Test("known details are accepted, the item's own fields always")
    func declaredDetails() throws {
        let rule = try Rule(#"status == "open" and title ~ "x" and age < 1d"#, details: ["status"])
        #expect(rule.text == #"status == "open" and title ~ "x" and age < 1d"#)
        #expect(throws: RuleError.self) { try Rule("actor == \"x\"", details: ["status"]) }
    }

    @Test("the great-circle distance: Los Angeles to New York")
    func distance() throws {
        // 3,936.4 km along the great circle (haversine, mean radius 6,371.0088 km): 3,936 km is too short.
        let item = Item(
            id: "la", title: "LA", date: Self.now, groups: [],
            details: [Detail("lat", "34.05"), Detail("lon", "-118.25")])
        #expect(try Rule("near(40.7128, -74.006, 3936km)", details: nil).matches(item, now: Self.now) == false)
        #expect(try Rule("near(40.7128, -74.006, 3937km)", details: nil).matches(item, now: Self.now) == true)
    }
}
