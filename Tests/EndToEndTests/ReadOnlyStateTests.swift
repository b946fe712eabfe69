import Foundation
import MonitorItems
import MonitorSQLite
import TestSupport
import Testing

@testable import MonitorCore

@Suite(
    "The offline commands on a read-only or missing state",
    .enabled(
        if: MonitorProcess.canRunUnprivileged,
        "skipped: as root, needs /usr/bin/setpriv (util-linux) to drop the override of file modes"),
    .timeLimit(.minutes(5)))
struct ReadOnlyStateTests {
    @Test("status and events read a state whose file and directory cannot be written, and write nothing")
    func readOnlyState() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", "feeds:\n  - name: planet\n    type: eonet\n")
        let state = directory.url.appendingPathComponent("state")
        let store = try SQLiteStateStore(directory: state)
        var record = FeedRecord(name: "planet", type: "eonet")
        record.status = "ok"
        record.itemCount = 1
        record.lastPoll = Date(timeIntervalSince1970: 1_700_000_000)
        let item = Item(id: "E1", title: "Fire", date: Date(timeIntervalSince1970: 1_700_000_000), groups: ["fires"])
        try await store.commit(
            PollCommit(record: record, items: [item], firstSeen: Date(), groups: nil, validators: [:], values: [:]),
            feed: "planet")
        let writable = (
            status: try await MonitorProcess.run(
                ["status", "--state", "state", "--format", "json"], in: directory.url),
            events: try await MonitorProcess.run(
                ["events", "planet", "--state", "state", "--format", "json"], in: directory.url)
        )
        #expect(writable.status.status == 0)
        #expect(writable.events.status == 0)

        let database = state.appendingPathComponent(SQLiteStateStore.fileName).path
        let names = try FileManager.default.contentsOfDirectory(atPath: state.path).sorted()
        #expect(chmod(database, 0o444) == 0)
        #expect(chmod(state.path, 0o555) == 0)
        defer { chmod(state.path, 0o755) }

        let status = try await MonitorProcess.runUnprivileged(
            ["status", "--state", "state", "--format", "json"], in: directory.url)
        #expect(status.status == 0)
        #expect(status.stderr == "")
        #expect(status.stdout == writable.status.stdout)
        #expect(status.stdout.contains(#""feed":"planet","type":"eonet","status":"ok""#))
        let events = try await MonitorProcess.runUnprivileged(
            ["events", "planet", "--state", "state", "--format", "json"], in: directory.url)
        #expect(events.status == 0)
        #expect(events.stderr == "")
        #expect(events.stdout == writable.events.stdout)
        #expect(events.stdout.contains(#""title":"Fire""#))
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path).sorted() == names)

        // A command that writes says so in words, without SQL.
        let run = try await MonitorProcess.runUnprivileged(["run", "--once", "--state", "state"], in: directory.url)
        #expect(run.status == 1)
        #expect(run.stderr == "monitor: error: cannot open the state: \(database) is read-only\n")
    }

    @Test("a missing state is 'nothing stored yet' for status and events, and is not created")
    func missingState() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", "feeds:\n  - name: planet\n    type: eonet\n")
        let status = try await MonitorProcess.run(["status", "--state", "none", "--format", "json"], in: directory.url)
        #expect(status.status == 0)
        #expect(status.stderr == "")
        #expect(
            status.stdout
                == #"[{"feed":"planet","type":"eonet","status":null,"lastPoll":null,"lastSuccess":null,"error":null,"failures":0,"items":0,"notBefore":null,"holdReason":null}]"#
                + "\n")
        let events = try await MonitorProcess.run(["events", "planet", "--state", "none"], in: directory.url)
        #expect(events.status == 1)
        #expect(
            events.stderr
                == "monitor events: error: no stored feed named 'planet' (nothing is stored yet: run `monitor run --once` first)\n"
        )
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("none").path))
    }

    @Test("a state directory that is a file is named as such, without an error domain")
    func stateIsAFile() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", "feeds:\n  - name: planet\n    type: eonet\n")
        let file = try directory.write("state", "not a directory\n")
        let result = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "monitor: error: cannot open the state: \(file.path) is a file, not a directory (--state names the state directory)\n"
        )
    }
}
