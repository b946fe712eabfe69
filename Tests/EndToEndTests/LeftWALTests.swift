import Foundation
import LoopbackHTTP
import MonitorSQLite
import TestSupport
import Testing

@testable import MonitorCore

@Suite(
    "run --once leaves the poll in the state's WAL (no checkpoint at close), and every reader reads through it",
    .enabled(
        if: MonitorProcess.canRunUnprivileged,
        "skipped: as root, needs /usr/bin/setpriv (util-linux) to drop the override of file modes"),
    .timeLimit(.minutes(5)))
struct LeftWALTests {
    @Test(
        "after run --once the WAL holds the poll; status and events read it, also when no file of the state can be written"
    )
    func readersReadTheWAL() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(eonetAnswer) { server in
            try directory.write(
                "feeds.yaml",
                """
                feeds:
                  - name: planet
                    type: eonet
                    api: \(server.baseURL)/api/v3
                """)
            let run = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("planet (eonet): ok — 13 items, 13 new, 14 requests"))
        }
        // Closing did not copy the WAL into the file: the poll's pages are still in the WAL.
        let state = directory.url.appendingPathComponent("state")
        let database = state.appendingPathComponent(SQLiteStateStore.fileName).path
        let wal = try FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? Int ?? 0
        #expect(wal > 0)
        #expect(FileManager.default.fileExists(atPath: database + "-shm"))

        let writable = (
            status: try await MonitorProcess.run(
                ["status", "--state", "state", "--format", "json"], in: directory.url),
            events: try await MonitorProcess.run(
                ["events", "planet", "--state", "state", "--format", "json"], in: directory.url)
        )
        #expect(writable.status.status == 0)
        #expect(writable.status.stdout.contains(#""feed":"planet","type":"eonet","status":"ok""#))
        #expect(writable.status.stdout.contains(#""items":13"#))
        let items = try #require(
            try JSONSerialization.jsonObject(with: Data(writable.events.stdout.utf8)) as? [[String: Any]])
        #expect(items.count == 13)

        // No file of the state, nor its directory, can be written: the readers still read the WAL's pages.
        let names = try FileManager.default.contentsOfDirectory(atPath: state.path).sorted()
        #expect(
            names == [
                SQLiteStateStore.fileName, SQLiteStateStore.fileName + "-shm", SQLiteStateStore.fileName + "-wal",
            ])
        for name in names { #expect(chmod(state.appendingPathComponent(name).path, 0o444) == 0) }
        #expect(chmod(state.path, 0o555) == 0)
        defer { chmod(state.path, 0o755) }
        let status = try await MonitorProcess.runUnprivileged(
            ["status", "--state", "state", "--format", "json"], in: directory.url)
        #expect(status.status == 0)
        #expect(status.stderr == "")
        #expect(status.stdout == writable.status.stdout)
        let events = try await MonitorProcess.runUnprivileged(
            ["events", "planet", "--state", "state", "--format", "json"], in: directory.url)
        #expect(events.status == 0)
        #expect(events.stderr == "")
        #expect(events.stdout == writable.events.stdout)
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path).sorted() == names)
    }
}
