import Foundation
import TestSupport
import Testing

/// `monitor status` lists the feeds of the feeds file and marks those removed from it; `monitor forget` removes what
/// the state holds of a feed: the built binary, its state in SQLite.
@Suite("status marks the feeds removed from the feeds file, and forget removes their data", .timeLimit(.minutes(5)))
struct ForgetTests {
    @Test("a removed feed is marked, not shown with its old error; forgetting it needs --yes off a terminal")
    func forget() async throws {
        let directory = try TemporaryDirectory()
        let keep =
            #"  - {name: keep, type: exec, command: [echo, '{"item":{"id":"a","title":"A","date":"2024-06-01T12:00:00Z"}}']}"#
        try directory.write(
            "feeds.yaml", "feeds:\n\(keep)\n  - {name: gone, type: exec, command: [sh, -c, 'echo boom >&2; exit 3']}\n")
        let run = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
        #expect(run.status == 1, "\(run.stderr)")
        try directory.write("feeds.yaml", "feeds:\n\(keep)\n")

        let status = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(
            status.stdout == """
                  feed  type  status                 last poll  items
                  keep  exec  ok                     just now       1
                  gone  exec  not in the feeds file  just now       0
                `monitor forget NAME` removes the stored data of a feed not in the feeds file

                """)

        let asked = try await MonitorProcess.run(["forget", "gone", "--state", "state"], in: directory.url)
        #expect(asked.status == 1)
        #expect(asked.stdout == "")
        #expect(
            asked.stderr == "monitor forget: error: standard input is not a terminal: pass --yes to forget 'gone'\n")

        let forgot = try await MonitorProcess.run(["forget", "gone", "--yes", "--state", "state"], in: directory.url)
        #expect(forgot.status == 0, "\(forgot.stderr)")
        #expect(forgot.stdout == "forgot feed 'gone': its record and 0 items\n")
        let after = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
        #expect(after.stdout == "  feed  type  status  last poll  items\n  keep  exec  ok      just now       1\n")
        let again = try await MonitorProcess.run(["forget", "gone", "--yes", "--state", "state"], in: directory.url)
        #expect(again.status == 1)
        #expect(again.stderr == "monitor forget: error: no stored feed named 'gone' (stored feeds: keep)\n")

        // A feed still in the file may be forgotten: it is then as if never polled.
        let configured = try await MonitorProcess.run(
            ["forget", "keep", "--yes", "--state", "state"], in: directory.url)
        #expect(
            configured.stdout
                == "forgot feed 'keep': its record and 1 item (still in feeds.yaml: its next poll starts afresh)\n")
        let none = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
        #expect(
            none.stdout
                == "  feed  type  status        last poll  items\n  keep  exec  never polled  -              0\n")
    }
}
