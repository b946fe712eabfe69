import Foundation
import LoopbackHTTP
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The feeds' errors `monitor status --format json --state state` lists, by feed.
private func storedErrors(in directory: TemporaryDirectory) async throws -> [String: String] {
    let status = try await MonitorProcess.run(["status", "--format", "json", "--state", "state"], in: directory.url)
    let entries = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
    var errors: [String: String] = [:]
    for entry in entries {
        if let feed = entry["feed"] as? String, let error = entry["error"] as? String { errors[feed] = error }
    }
    return errors
}

@Suite(
    "Text from programs and servers is capped where a feed's error is made: the real binary", .timeLimit(.minutes(5)))
struct UncappedTextTests {
    @Test("a program's failure of 1 MB: /healthz, the failed notification and the state hold its first 500 characters")
    func programFailure() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "fail.sh",
            """
            #!/bin/sh
            printf '{"failure":{"what":"the log","message":"%s end"}}\\n' "$(head -c 1000000 /dev/zero | tr '\\0' x)"

            """)
        chmod(directory.url.appendingPathComponent("fail.sh").path, 0o755)
        // The message is cut to 500 characters, then `the log: ` and it are.
        let error = "the log: " + String(repeating: "x", count: 490) + "…"
        try await withTestHTTPServer({ _ in .text("ok") }) { receiver in
            try directory.write(
                "feeds.yaml",
                """
                feeds:
                  - {name: big, type: exec, command: [./fail.sh]}
                notify:
                  - {name: hook, type: webhook, url: "\(receiver.baseURL)/hook"}
                """)
            let monitor = try await RunningMonitor(
                ["run", "--format", "json", "--state", "state", "--metrics", "127.0.0.1:0"], in: directory.url)
            let errors = try await monitor.waitForErrors { $0.contains("/metrics\n") }
            let base = String(
                try #require(errors.firstMatch(of: /metrics on (http:\/\/127\.0\.0\.1:[0-9]+)\/metrics\n/)?.output.1))
            try await monitor.waitForOutput { $0.contains(#""feed":"big""#) }
            try await receiver.waitForRequests(1)
            let (status, _, health) = try await fetch(base + "/healthz")
            #expect(status == 503)
            #expect(
                health.replacing(/([0-9]{4}-[0-9]{2}-[0-9]{2} )?[0-9]{2}:[0-9]{2}:[0-9]{2} UTC/, with: "TIME")
                    == "big: failing since TIME: \(error)\n")
            monitor.send(SIGTERM)
            #expect(try await monitor.waitForExit() == 0)
            #expect(monitor.stdout.contains(#""error":"\#(error)""#))
            let notification = String(decoding: try #require(receiver.requests.first?.body), as: UTF8.self)
            #expect(notification.contains(error))
            #expect(notification.utf8.count < 2_000, "\(notification.utf8.count) bytes")
            #expect(try await storedErrors(in: directory) == ["big": error])
            // No text kept holds more of the message than the error does.
            #expect(!(try stateBytes(directory)).contains(String(repeating: "x", count: 491)))
        }
    }

    @Test("an EONET list of 200,000 categories: the first 1,000 kept, an unknown one's error names 20 of them")
    func hugeCategoryList() async throws {
        let directory = try TemporaryDirectory()
        let ids = ["wildfires"] + (1..<200_000).map { "c\($0)" }
        let list = #"{"categories":["# + ids.map { #"{"id":"\#($0)","title":"\#($0)"}"# }.joined(separator: ",") + "]}"
        try await withTestHTTPServer({ _ in .json(list) }) { server in
            try directory.write(
                "feeds.yaml",
                """
                feeds:
                  - {name: fires, type: eonet, categories: [wildfire], api: "\(server.baseURL)/api/v3"}
                  - {name: far, type: eonet, categories: [c199999x], api: "\(server.baseURL)/api/v3"}
                """)
            let once = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
            #expect(once.status == 1)
            // The first 1,000 categories are kept: 20 of them named.
            let valid = "valid: \(ids.prefix(20).joined(separator: ", ")) and 980 more"
            #expect(
                try await storedErrors(in: directory) == [
                    "fires": "unknown category 'wildfire' (did you mean 'wildfires'? \(valid))",
                    // c199999 is past the first 1,000 categories: not suggested.
                    "far": "unknown category 'c199999x' (\(valid))",
                ])
            // The list kept for a 304 holds the first 1,000 categories: up to c999.
            let state = try stateBytes(directory)
            #expect(state.contains(#""c999""#) && !state.contains(#""c1000""#))
        }
    }
}
