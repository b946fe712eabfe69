import Foundation
import TestSupport
import Testing

/// `details: true` through the built binaries: `monitor run --once` against `monitor-standin`, whose events are as
/// trimmed as GitHub's and which answers `pulls`, `compare` and `commits` for them.
@Suite("A github feed with details: true fills in the stand-in's trimmed events", .timeLimit(.minutes(5)))
struct GitHubFillInEndToEndTests {
    @Test("every push and pull request said in full, one request each; the second run is one 304")
    func standIn() async throws {
        let standIn = try await StandIn(arguments: ["--github-events", "30"])
        defer { standIn.stop() }
        let directory = try TemporaryDirectory()
        try directory.write(
            "feeds.yaml",
            """
            feeds:
              - name: rx
                type: github
                repo: ReactiveX/RxSwift
                api: http://127.0.0.1:\(standIn.port)
                details: true
            """)
        let run = { () async throws -> [String: Any] in
            let result = try await MonitorProcess.run(
                ["run", "--once", "--format", "json", "--state", "state"], in: directory.url)
            #expect(result.status == 0, "\(result.stderr)")
            let line = try #require(result.stdout.split(separator: "\n").first)
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let first = try await run()
        let listed = try await MonitorProcess.run(
            ["events", "rx", "--format", "json", "--state", "state"], in: directory.url)
        let items = try ListedItem.decode(listed.stdout)
        #expect(items.count == 30)
        let pushes = items.filter { $0.groups == ["PushEvent"] }
        let pulls = items.filter { $0.groups == ["PullRequestEvent"] || $0.groups == ["PullRequestReviewEvent"] }
        #expect(!pushes.isEmpty)
        // Filled in: a push says its commits and the newest one's line (or that it was forced), a pull request its
        // title, author and state.
        for push in pushes {
            let counted = push.title.contains(" commit to ") || push.title.contains(" commits to ")
            #expect(counted && push.title.contains(": ") || push.title.contains(" force-pushed to "), "\(push.title)")
        }
        for pull in pulls {
            #expect(pull.title.contains(": ") && pull.details["author"] != nil && pull.details["state"] != nil)
        }
        // One request for the events, one for each push and pull request.
        #expect(first["requests"] as? Int == 1 + pushes.count + Set(pulls.compactMap { $0.details["number"] }).count)
        #expect(first["notes"] == nil)
        let second = try await run()
        #expect(second["requests"] as? Int == 1)
        #expect(second["notModified"] as? Int == 1)
    }
}
