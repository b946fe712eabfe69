import Foundation
import MonitorItems
import MonitorSQLite
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorJSON

@Suite("monitor events and monitor status on a prepared state, run as a user would")
struct EventsCommandTests {
    /// A state holding the feed `planet` (eonet): items dated whole minutes before `now`, three pairs of them
    /// sharing a date, and one item whose title and details carry control characters.
    static func prepare(_ directory: TemporaryDirectory, now: Date) async throws -> [Item] {
        let store = try SQLiteStateStore(directory: directory.url.appendingPathComponent("state"))
        let minute: Double = 60
        // Whole minutes, so that the listing's minutes do not depend on when the test runs.
        let base = (now.timeIntervalSince1970 / minute).rounded(.down) * minute
        func item(_ id: String, daysAgo: Double, _ groups: [String], _ status: String, title: String? = nil) -> Item {
            Item(
                id: id, title: title ?? "Event \(id)", date: Date(timeIntervalSince1970: base - daysAgo * 86_400),
                groups: groups, url: "https://eonet.example/\(id)",
                details: [Detail("status", status), Detail("magnitude", "\(id.count * 10) acres")])
        }
        let items = [
            item("EONET_b", daysAgo: 1, ["wildfires"], "open"),
            item("EONET_c", daysAgo: 1, ["severeStorms"], "open"),
            item("EONET_a", daysAgo: 1, ["wildfires", "severeStorms"], "closed"),
            item("EONET_10", daysAgo: 10, ["wildfires"], "open", title: "Fire \u{1B}[2Jten\u{7}"),
            item("EONET_9", daysAgo: 10, ["volcanoes"], "open"),
            item("EONET_old2", daysAgo: 45, ["wildfires"], "closed"),
            item("EONET_old1", daysAgo: 45, ["wildfires"], "closed"),
        ]
        var record = FeedRecord(name: "planet", type: "eonet")
        record.status = "ok"
        record.lastPoll = now
        record.itemCount = items.count
        try await store.commit(
            PollCommit(
                record: record, items: items, firstSeen: now,
                groups: [ItemGroup(id: "wildfires", title: "Wildfires")], validators: [:], values: [:]),
            feed: "planet")
        return items
    }

    /// `2026-11-22 04:10` in UTC, written by Foundation (the listing has its own formatter).
    static func minute(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    @Test(
        "events --limit, --group and --days list exactly the selected items, newest first, ties by id descending",
        arguments: [
            (["--limit", "2"], ["EONET_c", "EONET_b"]),
            (["--limit", "4"], ["EONET_c", "EONET_b", "EONET_a", "EONET_9"]),
            ([], ["EONET_c", "EONET_b", "EONET_a", "EONET_9", "EONET_10", "EONET_old2", "EONET_old1"]),
            (["--group", "wildfires"], ["EONET_b", "EONET_a", "EONET_10", "EONET_old2", "EONET_old1"]),
            (["--group", "wildfires", "--limit", "3"], ["EONET_b", "EONET_a", "EONET_10"]),
            (["--days", "30"], ["EONET_c", "EONET_b", "EONET_a", "EONET_9", "EONET_10"]),
            (["--group", "wildfires", "--days", "30"], ["EONET_b", "EONET_a", "EONET_10"]),
            (["--group", "severeStorms", "--days", "5", "--limit", "1"], ["EONET_c"]),
        ])
    func selection(arguments: [String], ids: [String]) async throws {
        let directory = try TemporaryDirectory()
        let now = Date()
        let items = Dictionary(uniqueKeysWithValues: try await Self.prepare(directory, now: now).map { ($0.id, $0) })
        let result = try await MonitorProcess.run(
            ["events", "planet", "--state", "state"] + arguments, in: directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        // The title of EONET_10 is shown without its escape sequence and bell.
        let rows = ids.map { id -> [String] in
            let item = items[id]!
            let title = id == "EONET_10" ? "Fire ten" : item.title
            return [Self.minute(item.date), item.detail("status")!, item.detail("magnitude")!, "", title]
        }
        #expect(
            result.stdout
                == SummaryText.table(header: ["date (UTC)", "status", "magnitude", "position", "title"], rows: rows))
        #expect(result.stdout.split(separator: "\n").count == ids.count + 1)
    }

    @Test("events --format json with --group and --limit gives the selected items whole")
    func json() async throws {
        let directory = try TemporaryDirectory()
        let items = try await Self.prepare(directory, now: Date())
        let result = try await MonitorProcess.run(
            ["events", "planet", "--group", "severeStorms", "--limit", "5", "--format", "json", "--state", "state"],
            in: directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = items.filter { ["EONET_c", "EONET_a"].contains($0.id) }.sorted { $0.id > $1.id }
        #expect(result.stdout == JSONValue.array(expected.map { $0.json() }).text + "\n")
    }

    @Test("events --format json gives an EONET item's lat, lon and magnitude as JSON numbers, read from the state")
    func jsonNumbers() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStateStore(directory: directory.url.appendingPathComponent("state"))
        let storm = Item(
            id: "EONET_9001", title: "Tropical Storm Alpha", date: ISO8601.date("2025-09-22T00:00:00Z")!,
            groups: ["severeStorms"],
            details: [
                Detail("status", "open"), Detail("magnitude", "45.5 kts"), Detail("position", "lat 15.2, lon -101"),
            ],
            location: Item.Position(latitude: 15.2, longitude: -101),
            magnitude: Item.Magnitude(value: 45.5, unit: "kts"))
        var record = FeedRecord(name: "planet", type: "eonet")
        record.status = "ok"
        record.itemCount = 1
        try await store.commit(
            PollCommit(record: record, items: [storm], firstSeen: Date(), groups: [], validators: [:], values: [:]),
            feed: "planet")
        let result = try await MonitorProcess.run(
            ["events", "planet", "--format", "json", "--state", "state"], in: directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == #"[{"id":"EONET_9001","title":"Tropical Storm Alpha","date":"2025-09-22T00:00:00Z","#
                + #""groups":["severeStorms"],"url":null,"details":{"status":"open","magnitude":"45.5 kts","#
                + #""position":"lat 15.2, lon -101"},"lat":15.2,"lon":-101,"magnitude_value":45.5,"magnitude_unit":"kts"}]"#
                + "\n")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(items.first?["lat"] as? Double == 15.2)
        #expect(!(items.first?["lat"] is String))
        #expect(items.first?["magnitude_value"] as? Double == 45.5)
    }

    @Test("events names the stored feeds when asked for one that is not stored; status does not need the items")
    func unknownFeed() async throws {
        let directory = try TemporaryDirectory()
        _ = try await Self.prepare(directory, now: Date())
        let result = try await MonitorProcess.run(["events", "planets", "--state", "state"], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "monitor events: error: no stored feed named 'planets' (did you mean 'planet'? stored feeds: planet)\n"
        )
        let status = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(
            status.stdout == """
                  feed    type   status  last poll  items
                  planet  eonet  ok      just now       7

                """)
    }
}
