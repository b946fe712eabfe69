import Foundation
import TestSupport
import Testing

/// `../shared/tools/realdata-server.py`, beside the package, when it is there with the captures it replays.
private let realdataServer: URL? = SharedSamples.realdata.flatMap { realdata in
    let script = realdata.deletingLastPathComponent().appendingPathComponent("tools/realdata-server.py")
    return FileManager.default.fileExists(atPath: script.path) ? script : nil
}

@Suite(
    "monitor map planet on EONET's real answers, replayed by realdata-server.py",
    .enabled(
        if: realdataServer != nil,
        "../shared/realdata or ../shared/tools/realdata-server.py is absent: the map of the real capture is not checked"
    ))
struct MapRealDataTests {
    private struct StoredItem: Decodable {
        var id: String
        var groups: [String]
        var details: [String: String]
    }

    /// The latitude and longitude of EONET's `position` detail, `lat 14.4, lon -99.4`, read here on its own.
    static func position(_ text: String) -> (latitude: Double, longitude: Double)? {
        let numbers = text.replacingOccurrences(of: "lat ", with: "").replacingOccurrences(of: " lon ", with: "")
            .split(separator: ",").compactMap { Double($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }

    @Test("every stored event with a position is drawn in its cell, and the legend counts them all")
    func everyEvent() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ListeningProcess("/usr/bin/env", ["python3", realdataServer!.path, "--port", "0"])
        defer { server.stop() }
        try directory.write(
            "feeds.yaml",
            """
            feeds:
              - name: planet
                type: eonet
                api: http://127.0.0.1:\(server.port)/api/v3
                status: all
            """)
        let run = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
        #expect(run.status == 0, "\(run.stderr)")
        let listing = try await MonitorProcess.run(
            ["events", "planet", "--state", "state", "--format", "json"], in: directory.url)
        let items = try JSONDecoder().decode([StoredItem].self, from: Data(listing.stdout.utf8))
        // The 5,641 open events of September 2025 and the 20 closed ones of November 2020, each with a position.
        #expect(items.count == 5_661)
        let positioned = items.compactMap { item in item.details["position"].flatMap(Self.position) }
        #expect(positioned.count == 5_661)

        let result = try await MonitorProcess.run(["map", "planet", "--state", "state"], in: directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let marks = MapCell.marks(lines, rows: 30, symbols: ["*", "+", "o", "x"])
        let drawn = Set(marks.values.joined())
        let expected = Set(
            positioned.map { point in
                let cell = MapCell.of(latitude: point.latitude, longitude: point.longitude, columns: 100, rows: 30)
                return MapCellPosition(column: cell.column, row: cell.row)
            })
        #expect(drawn == expected)
        // The counts per category are those Python's json finds in the captures (see EONETRealDataTests).
        #expect(
            Array(lines.suffix(5)) == [
                "* Sea and Lake Ice: 47 on the map, 0 without a position",
                "+ Severe Storms: 23 on the map, 0 without a position",
                "o Volcanoes: 35 on the map, 0 without a position",
                "x Wildfires: 5556 on the map, 0 without a position",
                "",
            ])
    }
}
