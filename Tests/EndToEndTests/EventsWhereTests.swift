import Foundation
import LoopbackHTTP
import TestSupport
import Testing

@testable import MonitorCore

/// An item as `monitor events --format json` prints it: what the tests' own filters look at.
struct ListedItem: Sendable {
    var id: String
    var title: String
    var groups: [String]
    var details: [String: String]

    /// The items of `monitor events --format json`'s output.
    static func decode(_ output: String) throws -> [ListedItem] {
        let array = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        return array.map { object in
            ListedItem(
                id: object["id"] as? String ?? "", title: object["title"] as? String ?? "",
                groups: object["groups"] as? [String] ?? [], details: object["details"] as? [String: String] ?? [:])
        }
    }
}

/// `monitor events NAME --where RULE`, through the built binary, on states filled by `monitor run --once` from the
/// stand-in and from the real EONET capture.
@Suite("monitor events --where lists the stored items a rule matches", .timeLimit(.minutes(5)))
struct EventsWhereTests {
    /// `monitor events ARGUMENTS --format json` in `directory`, decoded; a failure is recorded with its stderr.
    static func listed(_ arguments: [String], in directory: TemporaryDirectory) async throws -> [ListedItem] {
        let result = try await MonitorProcess.run(
            ["events"] + arguments + ["--format", "json", "--state", "state"], in: directory.url)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(result.stderr == "")
        return try ListedItem.decode(result.stdout)
    }

    /// `monitor run --once` of `feeds` in `directory`, which must end with `status` (0: every feed succeeded).
    static func runOnce(_ feeds: String, in directory: TemporaryDirectory, expecting status: Int32 = 0) async throws {
        try directory.write("feeds.yaml", feeds)
        let run = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
        #expect(run.status == status, "\(run.stdout)\(run.stderr)")
    }

    @Test("on the stand-in's EONET and GitHub data: exactly the items the rule describes")
    func standIn() async throws {
        let standIn = try await StandIn(arguments: ["--eonet-events", "200", "--github-events", "60"])
        defer { standIn.stop() }
        let directory = try TemporaryDirectory()
        try await Self.runOnce(
            """
            feeds:
              - name: planet
                type: eonet
                api: http://127.0.0.1:\(standIn.port)/api/v3
              - name: rx
                type: github
                repo: ReactiveX/RxSwift
                keep: 100
                api: http://127.0.0.1:\(standIn.port)

            """, in: directory)
        let counts = try await standIn.eonetCounts()

        let planet = try await Self.listed(["planet"], in: directory)
        #expect(planet.count == 200)
        let wildfires = try await Self.listed(["planet", "--where", #"group == "wildfires""#], in: directory)
        #expect(wildfires.count == counts["wildfires"])
        #expect(wildfires.map(\.id) == planet.filter { $0.groups.contains("wildfires") }.map(\.id))
        let stormsOrFloods = try await Self.listed(
            ["planet", "--where", #"group in ["severeStorms", "floods"] and status == "closed""#], in: directory)
        #expect(
            stormsOrFloods.map(\.id)
                == planet.filter {
                    !Set($0.groups).isDisjoint(with: ["severeStorms", "floods"]) && $0.details["status"] == "closed"
                }.map(\.id))
        #expect(stormsOrFloods.count > 0)
        // A box across the antimeridian, on the items' positions (`lat 14.4, lon -99.4`, which rules read as lat and
        // lon).
        let box = try await Self.listed(["planet", "--where", "within(-10, 100, 60, -100)"], in: directory)
        #expect(
            box.map(\.id)
                == planet.filter { item in
                    let numbers = (item.details["position"] ?? "").split(separator: ",").compactMap {
                        Double($0.split(separator: " ").last ?? "")
                    }
                    guard numbers.count == 2 else { return false }
                    return (-10...60).contains(numbers[0]) && (numbers[1] >= 100 || numbers[1] <= -100)
                }.map(\.id))
        #expect(box.count > 0)
        // --limit counts the items the rule matches, not those stored.
        let limited = try await Self.listed(
            ["planet", "--where", #"not group == "wildfires""#, "--limit", "5"], in: directory)
        #expect(limited.map(\.id) == Array(planet.filter { !$0.groups.contains("wildfires") }.prefix(5)).map(\.id))

        let rx = try await Self.listed(["rx"], in: directory)
        #expect(rx.count == 60)
        let pushesAndReleases = try await Self.listed(
            ["rx", "--where", #"group in ["PushEvent", "ReleaseEvent"] and not (actor ~ "\\[bot\\]$")"#],
            in: directory)
        #expect(
            pushesAndReleases.map(\.id)
                == rx.filter {
                    ($0.groups == ["PushEvent"] || $0.groups == ["ReleaseEvent"])
                        && !($0.details["actor"] ?? "").hasSuffix("[bot]")
                }.map(\.id))
        #expect(pushesAndReleases.count > 0)
    }

    @Test("a rule's error is rendered like the feeds file's, the column counted within the argument")
    func error() async throws {
        let directory = try TemporaryDirectory()
        _ = try await EventsCommandTests.prepare(directory, now: Date())
        /// What `monitor events planet --where RULE` writes on standard error; it must fail, writing nothing else.
        func rejected(_ rule: String) async throws -> String {
            let result = try await MonitorProcess.run(
                ["events", "planet", "--where", rule, "--state", "state"], in: directory.url)
            #expect(result.status == 1)
            #expect(result.stdout == "")
            return result.stderr
        }
        #expect(
            try await rejected(#"group == "wildfires" and titel ~ "fire""#) == """
                --where:1:26: error: unknown field 'titel' (did you mean 'title'? the fields are: id, title, url, date, age, group, status, closed, magnitude, magnitude_value, magnitude_unit, position, lat, lon, geometry, description)
                group == "wildfires" and titel ~ "fire"
                                         ^
                1 error in --where

                """)
        #expect(
            try await rejected("title ~ \"(a|b\"\n  or status == 5") == """
                --where:1:10: error: invalid regular expression: '(' is not closed by ')'
                title ~ "(a|b"
                         ^
                1 error in --where

                """)
        #expect(
            try await rejected("title ~ \"a\"\n  or status ==") == """
                --where:2:15: error: expected a text, a number or a duration after '==', found the end of the rule
                  or status ==
                              ^
                1 error in --where

                """)
    }
}

/// The real EONET capture (`../shared/realdata/eonet-v3-events-2025-09.json`, 5,641 open events) served on
/// loopback by category, polled by `monitor run --once`, and listed with rules: the counts are what Python's `json`
/// and `re` find in the capture (computed once, written here).
@Suite(
    "monitor events --where on the real EONET capture", .timeLimit(.minutes(5)),
    .enabled(
        if: SharedSamples.realdata.map {
            FileManager.default.fileExists(atPath: $0.path + "/eonet-v3-events-2025-09.json")
        }
            ?? false,
        "../shared/realdata/eonet-v3-events-2025-09.json is absent: the rules are not tried on the real capture"))
struct EventsWhereRealDataTests {
    /// An EONET server answering from the capture: `/categories` as captured, `/events?category=ID` with the
    /// capture's events of that category, in its order.
    static func server() throws -> @Sendable (RecordedRequest) -> TestResponse {
        let categories = String(
            decoding: try SharedSamples.bytes("realdata/eonet-v3-categories-2025-09.json"), as: UTF8.self)
        let capture = try #require(
            try JSONSerialization.jsonObject(
                with: Data(try SharedSamples.bytes("realdata/eonet-v3-events-2025-09.json")))
                as? [String: Any])
        let events = try #require(capture["events"] as? [[String: Any]])
        var documents: [String: String] = [:]
        var byCategory: [String: [[String: Any]]] = [:]
        for event in events {
            for category in event["categories"] as? [[String: Any]] ?? [] {
                byCategory[category["id"] as? String ?? "", default: []].append(event)
            }
        }
        for (category, events) in byCategory {
            let data = try JSONSerialization.data(withJSONObject: ["title": "EONET Events", "events": events])
            documents[category] = String(decoding: data, as: UTF8.self)
        }
        let empty = #"{"title": "EONET Events", "events": []}"#
        return { [documents] request in
            if request.path.hasSuffix("/categories") { return .json(categories) }
            return .json(documents[request.query["category"] ?? ""] ?? empty)
        }
    }

    @Test("exact counts")
    func counts() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(try Self.server()) { http in
            try directory.write(
                "feeds.yaml",
                "feeds:\n  - name: real\n    type: eonet\n    status: open\n    days: 36500\n    api: \(http.baseURL)/api/v3\n"
            )
            let run = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        }
        let cases: [(rule: String, count: Int)] = [
            ("", 5_641),
            (#"group == "wildfires""#, 5_555),
            (#"group in ["volcanoes", "seaLakeIce"]"#, 82),
            (#"group != "wildfires""#, 86),
            (#"title ~ "(?i)prescribed""#, 48),
            (#"group == "wildfires" and not title ~ "(?i)prescribed|rx""#, 5_074),
            // Positions and magnitudes: of each event's newest observation, and its newest with a magnitude.
            ("within(24, -125, 50, -66)", 1_646),
            ("within(-60, 150, 0, -150)", 9),
            (#"group == "wildfires" and near(34.05, -118.25, 500km)"#, 119),
            (#"magnitude_value >= 1000 and magnitude_unit == "acres""#, 906),
            (#"magnitude_unit == "kts" and magnitude_value >= 50"#, 4),
        ]
        for (rule, count) in cases {
            let listed = try await EventsWhereTests.listed(
                ["real"] + (rule.isEmpty ? [] : ["--where", rule]), in: directory)
            #expect(listed.count == count, "\(rule)")
        }
    }
}
