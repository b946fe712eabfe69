import Foundation
import TestSupport
import Testing

@Suite("monitor map on a state filled by an exec feed whose items carry known positions")
struct MapCommandTests {
    /// An item the feed's program reports: its position (nil: none; a latitude of 95 is not a valid one), its groups
    /// and its age.
    struct Place {
        var id: String
        var latitude: Double?
        var longitude: Double?
        var groups: [String]
        var daysAgo: Int
    }

    static let places = [
        Place(id: "tokyo", latitude: 35.68, longitude: 139.69, groups: ["big"], daysAgo: 1),
        Place(id: "lima", latitude: -12.05, longitude: -77.04, groups: ["big"], daysAgo: 10),
        Place(id: "sydney", latitude: -33.87, longitude: 151.21, groups: ["big"], daysAgo: 40),
        Place(id: "pole", latitude: 95, longitude: 0, groups: ["big"], daysAgo: 5),
        Place(id: "reykjavik", latitude: 64.15, longitude: -21.94, groups: ["small"], daysAgo: 2),
        Place(id: "anchorage", latitude: 61.22, longitude: -149.9, groups: ["small"], daysAgo: 50),
        Place(id: "nowhere", latitude: nil, longitude: nil, groups: ["small"], daysAgo: 1),
        Place(id: "gulf", latitude: 0.5, longitude: 0.5, groups: ["small", "big"], daysAgo: 3),
    ]

    /// A directory whose state holds the feed `quakes` (groups `big` then `small`), stored by `monitor run --once`
    /// from a program that reports `places`.
    static func prepare() async throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        let items = places.map { place in
            let details =
                place.latitude.map { ", \"details\": {\"lat\": \($0), \"lon\": \(place.longitude!)}" } ?? ""
            let groups = place.groups.map { "\"\($0)\"" }.joined(separator: ", ")
            return """
                print(json.dumps({"item": json.loads('{"id": "\(place.id)", "title": "\(place.id)", \
                "date": "' + ago(\(place.daysAgo)) + '", "groups": [\(groups)]\(details)}')}))
                """
        }
        let program = """
            import datetime, json
            def ago(days):
                moment = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=days)
                return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
            print(json.dumps({"group": {"id": "big", "title": "Big quakes"}}))
            print(json.dumps({"group": {"id": "small", "title": "Small quakes"}}))

            """ + items.joined(separator: "\n") + "\n"
        try directory.write("quakes.py", program)
        try directory.write(
            "feeds.yaml",
            """
            feeds:
              - name: quakes
                type: exec
                command: [python3, quakes.py]
            """)
        let run = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
        #expect(run.status == 0, "\(run.stderr)")
        return directory
    }

    /// The symbol each cell must show on a map `columns`×`rows` of the places of `groups` within `days`: the symbol of
    /// the first group (in `groups`' order) among the places in that cell, `*` for big and `+` for small in every map.
    static func expectedMarks(groups: [String], days: Int?, columns: Int, rows: Int) -> [Character: [MapCellPosition]] {
        let symbols = groups.map { $0 == "big" ? Character("*") : "+" }
        var cells: [MapCellPosition: Int] = [:]
        for place in places where days.map({ place.daysAgo < $0 }) ?? true {
            guard let latitude = place.latitude, let longitude = place.longitude, latitude <= 90,
                let index = groups.firstIndex(where: place.groups.contains)
            else { continue }
            let cell = MapCell.of(latitude: latitude, longitude: longitude, columns: columns, rows: rows)
            let position = MapCellPosition(column: cell.column, row: cell.row)
            cells[position] = min(cells[position] ?? index, index)
        }
        var marks: [Character: [MapCellPosition]] = [:]
        for (cell, index) in cells.sorted(by: { ($0.key.row, $0.key.column) < ($1.key.row, $1.key.column) }) {
            marks[symbols[index], default: []].append(cell)
        }
        return marks
    }

    @Test("a map of 40×10: the outlines, each item in the cell of its position, the legend with its counts")
    func whole() async throws {
        let directory = try await Self.prepare()
        let result = try await MonitorProcess.run(
            ["map", "quakes", "--state", "state", "--width", "40", "--height", "10"], in: directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            MapCell.marks(lines, rows: 10, symbols: ["*", "+"])
                == Self.expectedMarks(groups: ["big", "small"], days: nil, columns: 40, rows: 10))
        #expect(
            result.stdout == """
                      ⣠⣤⣤⣶⣶⣶⣶⣒⠒⠒⠒⣲⠖  ⠤⠤⠄⠠⢤⣀⣤⣀⣀⣶⣤⣄⣀⡀⣀⣀
                ⠓⢿⣯+⢯⣍⠉⠙⠉⢿⣻⡿⡿⣊⠧⠖⠋+⠂⣤⢰⣾⣿⡿⠛⠋⢉⣙⣃⠁    ⠉⣩⠬⣭⡭⠽
                     ⠉⡗⠒⠒⠒⠺⣵⠾⠛⠂   ⢨⣿⣽⣿⣿⣿⣧⣿⣽⣤⣭⠛⠯⠭⠾⣯⡷⣿⠆⠉
                  ⣀   ⠈⠿⣷⣖⣲⣏⣀     ⣼⡿⣈⢿⣻⣻⣟⣳⣾⢿⡛⣶⣶⣤⣠⣿⠛*
                        ⠈⠉⠻⣿⣿⣦⡄   ⠻⡿*⣿⡿⣶⣹⡿⠁ ⠻⠅⢹⣿⣣⣿⡆
                ⡀         ⠘*⡧⣄⠉⢹⠆   ⠈⣿⣦⣿⣯⣤     ⠙⠻⢿⡿⣿⡿⠳⢄⢀
                           ⢀⡟⢿⡶⠋     ⢹⣟⡿⠙⠃      ⢸⣉⣀⡀*⠆⠉⡈
                           ⢸⡷⣋             ⢠       ⠈⠋ ⠰⠛
                        ⢀⡀ ⢈⣭⡤    ⢀⣀⣀⣀⣀⣀⣀⡤⢤⣄⣀⡤⠤⠤⠤⠤⠤⠤⣄⣀⣀⡀
                ⠤⠴⠶⡾⠍⠉⠉⠉⠉⠉⠉⠛⠿⠷⠶⠦⠒⠉⠉        ⠈         ⠰⠿⠥
                * Big quakes: 4 on the map, 1 without a position
                + Small quakes: 3 on the map, 1 without a position

                """)
    }

    @Test(
        "--group and --days: only the group's items within the window, the group alone in the legend, its symbol its own"
    )
    func groupAndDays() async throws {
        let directory = try await Self.prepare()
        let result = try await MonitorProcess.run(
            [
                "map", "quakes", "--state", "state", "--width", "40", "--height", "10", "--group", "small", "--days",
                "30",
            ],
            in: directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        // Reykjavik and the gulf; Anchorage is 50 days old, `nowhere` has no position.
        #expect(
            MapCell.marks(lines, rows: 10, symbols: ["*", "+"])
                == Self.expectedMarks(groups: ["small"], days: 30, columns: 40, rows: 10))
        #expect(
            result.stdout == """
                      ⣠⣤⣤⣶⣶⣶⣶⣒⠒⠒⠒⣲⠖  ⠤⠤⠄⠠⢤⣀⣤⣀⣀⣶⣤⣄⣀⡀⣀⣀
                ⠓⢿⣯⡭⢯⣍⠉⠙⠉⢿⣻⡿⡿⣊⠧⠖⠋+⠂⣤⢰⣾⣿⡿⠛⠋⢉⣙⣃⠁    ⠉⣩⠬⣭⡭⠽
                     ⠉⡗⠒⠒⠒⠺⣵⠾⠛⠂   ⢨⣿⣽⣿⣿⣿⣧⣿⣽⣤⣭⠛⠯⠭⠾⣯⡷⣿⠆⠉
                  ⣀   ⠈⠿⣷⣖⣲⣏⣀     ⣼⡿⣈⢿⣻⣻⣟⣳⣾⢿⡛⣶⣶⣤⣠⣿⠛⠉
                        ⠈⠉⠻⣿⣿⣦⡄   ⠻⡿+⣿⡿⣶⣹⡿⠁ ⠻⠅⢹⣿⣣⣿⡆
                ⡀         ⠘⢿⡧⣄⠉⢹⠆   ⠈⣿⣦⣿⣯⣤     ⠙⠻⢿⡿⣿⡿⠳⢄⢀
                           ⢀⡟⢿⡶⠋     ⢹⣟⡿⠙⠃      ⢸⣉⣀⡀⢙⠆⠉⡈
                           ⢸⡷⣋             ⢠       ⠈⠋ ⠰⠛
                        ⢀⡀ ⢈⣭⡤    ⢀⣀⣀⣀⣀⣀⣀⡤⢤⣄⣀⡤⠤⠤⠤⠤⠤⠤⣄⣀⣀⡀
                ⠤⠴⠶⡾⠍⠉⠉⠉⠉⠉⠉⠛⠿⠷⠶⠦⠒⠉⠉        ⠈         ⠰⠿⠥
                + Small quakes: 2 on the map, 1 without a position

                """)
    }

    // The cases of one test share one prepared state: each preparation runs python and monitor.
    @Test("sizes: 100×30 when the output is not a terminal, else as given; every item in the cell of its position")
    func sizes() async throws {
        let directory = try await Self.prepare()
        let cases: [(arguments: [String], columns: Int, rows: Int)] = [
            ([], 100, 30), (["--width", "120"], 120, 30), (["--height", "7"], 100, 7),
            (["--width", "1", "--height", "1"], 1, 1), (["--width", "1000", "--height", "500"], 1000, 500),
        ]
        for (arguments, columns, rows) in cases {
            try await size(directory, arguments: arguments, columns: columns, rows: rows)
        }
    }

    private func size(_ directory: TemporaryDirectory, arguments: [String], columns: Int, rows: Int) async throws {
        let result = try await MonitorProcess.run(["map", "quakes", "--state", "state"] + arguments, in: directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == rows + 2 + 1)  // the map, the legend's two groups, the empty rest after the last newline
        #expect(lines.prefix(rows).allSatisfy { $0.count <= columns })
        #expect(
            MapCell.marks(lines, rows: rows, symbols: ["*", "+"])
                == Self.expectedMarks(groups: ["big", "small"], days: nil, columns: columns, rows: rows))
        #expect(
            lines.suffix(3) == [
                "* Big quakes: 4 on the map, 1 without a position",
                "+ Small quakes: 3 on the map, 1 without a position",
                "",
            ])
    }

    @Test(
        "errors name what is wrong: an unknown feed, an unknown group (for events too), no state, a size out of bounds, a window below 1"
    )
    func errors() async throws {
        let directory = try await Self.prepare()
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (
                ["map", "quake"], 1,
                "monitor map: error: no stored feed named 'quake' (did you mean 'quakes'? stored feeds: quakes)\n"
            ),
            (
                ["map", "quakes", "--group", "bog"], 1,
                "monitor map: error: feed 'quakes' has no group 'bog' (did you mean 'big'? groups: big, small)\n"
            ),
            // `events` checks a group as `map` does (one check for every command that takes `--group`).
            (
                ["events", "quakes", "--group", "bog"], 1,
                "monitor events: error: feed 'quakes' has no group 'bog' (did you mean 'big'? groups: big, small)\n"
            ),
            (
                ["map", "quakes", "--state", "elsewhere"], 1,
                "monitor map: error: no stored feed named 'quakes' (nothing is stored yet: run `monitor run --once` first)\n"
            ),
            (["map", "quakes", "--width", "0"], 64, "Error: --width must be between 1 and 1000, not 0\n"),
            (["map", "quakes", "--height", "0"], 64, "Error: --height must be between 1 and 500, not 0\n"),
            // Beyond the bounds: no overflow, no 20 GB canvas.
            (
                ["map", "quakes", "--width", "4611686018427387904"], 64,
                "Error: --width must be between 1 and 1000, not 4611686018427387904\n"
            ),
            (
                ["map", "quakes", "--width", "100000", "--height", "100000"], 64,
                "Error: --width must be between 1 and 1000, not 100000\n"
            ),
            (["map", "quakes", "--height", "501"], 64, "Error: --height must be between 1 and 500, not 501\n"),
            (["map", "quakes", "--days", "0"], 64, "Error: --days must be at least 1\n"),
        ]
        for (arguments, status, message) in cases {
            let state = arguments.contains("--state") ? [] : ["--state", "state"]
            let result = try await MonitorProcess.run(arguments + state, in: directory.url)
            #expect(result.status == status, "\(arguments)")
            #expect(result.stdout == "")
            #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        }
    }
}
