import Foundation
import LoopbackHTTP
import TestSupport
import Testing

@testable import MonitorCore

/// `where:` on feeds and on notifiers, through the built binary, on the stand-in's EONET and GitHub data, with a
/// real receiver on 127.0.0.1.
@Suite("where: on feeds and notifiers, run as a user would", .timeLimit(.minutes(5)))
struct RulesEndToEndTests {
    /// The feeds' entries of `monitor status --format json`, by feed.
    static func storedCounts(in directory: TemporaryDirectory) async throws -> [String: Int] {
        let status = try await MonitorProcess.run(
            ["status", "--state", "state", "--format", "json"], in: directory.url)
        #expect(status.status == 0, "\(status.stderr)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
        var counts: [String: Int] = [:]
        for entry in entries {
            if let feed = entry["feed"] as? String { counts[feed] = entry["items"] as? Int }
        }
        return counts
    }

    @Test("a feed's rule decides what is stored, counted and listed")
    func feeds() async throws {
        let standIn = try await StandIn(arguments: ["--eonet-events", "200", "--github-events", "60"])
        defer { standIn.stop() }
        let counts = try await standIn.eonetCounts()
        let directory = try TemporaryDirectory()
        try await EventsWhereTests.runOnce(
            """
            feeds:
              - name: all
                type: eonet
                api: http://127.0.0.1:\(standIn.port)/api/v3
              - name: fires
                type: eonet
                api: http://127.0.0.1:\(standIn.port)/api/v3
                where: group == "wildfires"
              - name: rx
                type: github
                repo: ReactiveX/RxSwift
                keep: 100
                api: http://127.0.0.1:\(standIn.port)
              - name: rx-pushes
                type: github
                repo: ReactiveX/RxSwift
                keep: 100
                api: http://127.0.0.1:\(standIn.port)
                where: group == "PushEvent" and not actor ~ "\\\\[bot\\\\]$"

            """, in: directory)
        let all = try await EventsWhereTests.listed(["all"], in: directory)
        let fires = try await EventsWhereTests.listed(["fires"], in: directory)
        #expect(all.count == 200)
        #expect(fires.count == counts["wildfires"])
        #expect(fires.map(\.id) == all.filter { $0.groups.contains("wildfires") }.map(\.id))
        let rx = try await EventsWhereTests.listed(["rx"], in: directory)
        let pushes = try await EventsWhereTests.listed(["rx-pushes"], in: directory)
        let expected = rx.filter { $0.groups == ["PushEvent"] && !($0.details["actor"] ?? "").hasSuffix("[bot]") }
        #expect(pushes.map(\.id) == expected.map(\.id))
        #expect(pushes.count > 0 && pushes.count < rx.count)
        #expect(
            try await Self.storedCounts(in: directory)
                == ["all": 200, "fires": counts["wildfires"]!, "rx": rx.count, "rx-pushes": expected.count])
    }

    @Test("a notifier's rule decides which new items it is sent; failed is not filtered")
    func notifiers() async throws {
        let standIn = try await StandIn(arguments: ["--eonet-events", "200"])
        defer { standIn.stop() }
        let directory = try TemporaryDirectory()
        let refusing = try #require(RefusingPort())
        defer { refusing.close() }
        func feedsFile(api: String, categories: String, hook: String) -> String {
            """
            feeds:
              - name: planet
                type: eonet
                api: \(api)
                \(categories)
            notify:
              - name: volcanoes
                type: webhook
                url: \(hook)/volcanoes
                where: group == "volcanoes" and status == "open"
              - name: never
                type: webhook
                url: \(hook)/never
                where: title ~ "^no such title$"

            """
        }
        try await withTestHTTPServer({ _ in .text("ok") }) { server in
            let api = "http://127.0.0.1:\(standIn.port)/api/v3"
            // The first sync, of wildfires only, is the baseline: nothing is sent.
            try await EventsWhereTests.runOnce(
                feedsFile(api: api, categories: "categories: [wildfires]", hook: server.baseURL), in: directory)
            #expect(server.requests.isEmpty)
            let before = Set(try await EventsWhereTests.listed(["planet"], in: directory).map(\.id))
            // Every category: the events not stored before are new; the volcanoes notifier is sent the open
            // volcanoes among them, the other nothing.
            try await EventsWhereTests.runOnce(feedsFile(api: api, categories: "", hook: server.baseURL), in: directory)
            let after = try await EventsWhereTests.listed(["planet"], in: directory)
            let expected = after.filter {
                !before.contains($0.id) && $0.groups.contains("volcanoes") && $0.details["status"] == "open"
            }
            #expect(expected.count > 0)
            let requests = server.requests
            #expect(requests.map(\.uri) == ["/volcanoes"])
            let first = try #require(requests.first)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(first.body)) as? [String: Any])
            #expect(body["event"] as? String == "new")
            #expect(body["total"] as? Int == expected.count)
            let sent = (body["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(Set(sent) == Set(expected.map(\.id)))
            #expect(sent.count == expected.count)

            // The API down: the poll fails, and both notifiers are told, whatever their rules.
            try await EventsWhereTests.runOnce(
                feedsFile(api: "http://127.0.0.1:\(refusing.number)/api/v3", categories: "", hook: server.baseURL),
                in: directory, expecting: 1)
            let failed = server.requests.dropFirst()
            #expect(Set(failed.map(\.uri)) == ["/volcanoes", "/never"])
            for request in failed {
                let body = try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
                #expect(body?["event"] as? String == "failed")
            }
        }
    }
}
