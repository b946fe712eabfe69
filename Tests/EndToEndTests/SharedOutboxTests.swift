import Foundation
import LoopbackHTTP
import PostgresTestSupport
import TestSupport
import Testing

/// What the receiver saw: the ids of the notifications it accepted, in order, and how many it turned away.
private struct Received: Sendable {
    var accepted: [String] = []
    var turnedAway = 0
}

@Suite("Two monitor run instances delivering one PostgreSQL outbox", .timeLimit(.minutes(5)))
struct SharedOutboxTests {
    @Test("five notifications waiting in the outbox are each received once by the one receiver of two instances")
    func eachReceivedOnce() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        let other = try TemporaryDirectory()
        let environment = ["MONITOR_STATE": server.text(of: url)]
        let received = Watched(Received())
        let up = Watched(false)
        let receiver: @Sendable (RecordedRequest) async -> TestResponse = { request in
            guard up.value else {
                received.update { $0.turnedAway += 1 }
                return .text("down", status: 503)
            }
            let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
            received.update { $0.accepted.append(body?["id"] as? String ?? "?") }
            return .text("ok")
        }
        let outputs = try await withTestHTTPServer(receiver) { http in
            // Each instance has a feed of its own besides the shared one, whose report says it is running.
            func feedsFile(own: String) -> String {
                """
                feeds:
                  - name: ev
                    type: exec
                    command: [cat, items.jsonl]
                    interval: 1h
                  - name: \(own)
                    type: exec
                    command: [cat, own.jsonl]
                    interval: 1h
                notify:
                  - name: chat
                    type: webhook
                    url: \(http.baseURL)/hook
                    on: [new]
                """
            }
            // `run --once` goes through the shared schedule: its own feed, polled by it, is not due again for an
            // hour; the instance started later has an own feed never polled.
            try directory.write("feeds.yaml", feedsFile(own: "setup"))
            try other.write("feeds.yaml", feedsFile(own: "b"))
            for place in [directory, other] {
                try place.write(
                    "own.jsonl", #"{"item":{"id":"o1","title":"Own","date":"2025-09-21T18:00:00Z"}}"# + "\n")
            }
            // A first sync, then five polls with a new event each while the receiver is down: five notifications
            // wait in the outbox.
            for count in 1...6 {
                let lines = (1...count).map {
                    #"{"item":{"id":"e\#($0)","title":"Event \#($0)","date":"2025-09-21T18:0\#($0):00Z"}}"#
                }
                try directory.write("items.jsonl", lines.joined(separator: "\n") + "\n")
                try other.write("items.jsonl", lines.joined(separator: "\n") + "\n")
                _ = try await MonitorProcess.run(["run", "--once"], in: directory.url, environment: environment)
            }
            #expect(
                try await server.strings(
                    "SELECT count(*)::text FROM notification WHERE failed_permanently IS NULL", database: url.database)
                    == ["5"])
            up.update { $0 = true }
            try directory.write("feeds.yaml", feedsFile(own: "a"))
            var monitors: [RunningMonitor] = []
            for place in [directory, other] {
                monitors.append(
                    try await RunningMonitor(["run", "--format", "json"], in: place.url, environment: environment))
            }
            try await received.wait { $0.accepted.count >= 5 }
            for (monitor, own) in zip(monitors, ["a", "b"]) {
                // Its own feed's report (not the line saying it holds the feed's lease).
                try await monitor.waitForOutput { text in
                    text.split(separator: "\n").contains {
                        $0.contains(#""feed":"\#(own)""#) && $0.contains(#""status":"#)
                    }
                }
            }
            for monitor in monitors { monitor.send(SIGINT) }
            for monitor in monitors {
                #expect(try await monitor.waitForExit() == 0)
                #expect(monitor.stderr == "")
            }
            return monitors.map(\.stdout)
        }
        let accepted = received.value.accepted
        #expect(accepted.count == 5, "\(accepted)")
        #expect(Set(accepted).count == 5, "\(accepted)")
        // Each received notification was recorded as delivered by the instance that sent it, or is still in the
        // outbox when that instance stopped between sending and recording (delivered at least once); none was sent
        // twice.
        let left = try await server.strings("SELECT id FROM notification ORDER BY seq", database: url.database)
        #expect(Set(left).isSubset(of: Set(accepted)), "\(left)")
        #expect(left.count <= 2, "\(left) \(outputs)")
        #expect(received.value.turnedAway == 5)
    }
}
