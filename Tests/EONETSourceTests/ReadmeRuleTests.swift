import EONETSource
import Foundation
import MonitorRules
import TestSupport
import Testing

@testable import MonitorCore

@Suite("The README's rule example, on real EONET items")
struct ReadmeRuleTests {
    /// The `where:` of the README's example notifier `chat`.
    static func chatRule() throws -> String {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let lines = try String(contentsOf: readme, encoding: .utf8).split(separator: "\n")
        let chat = try #require(lines.firstIndex { $0.hasSuffix("- name: chat") })
        let rule = try #require(lines[chat...].first { $0.hasPrefix("    where: ") })
        return String(rule.dropFirst("    where: ".count))
    }

    @Test("the notifier's rule keeps storms of 50 kts or more and Californian events, not a fire of 300 acres")
    func chatRuleOnThePlanet() async throws {
        let harness = PollHarness()
        let report = await harness.poll(EONETSource.self, feed: planetFeed(), transport: EONETServer().transport).report
        #expect(report.status == .ok)
        let rule = try Rule(try Self.chatRule(), details: EONETSource.detailNames)
        let items = try await harness.store.items(feed: "planet")
        let kept = items.filter { rule.matches($0, now: EONETFixtures.now, source: EONETSource.self) }.map(\.id)
        // Hurricane Bravo (95 kts), Storm Delta (50 kts), Foxtrot Fire, California (1,250 acres).
        #expect(kept.sorted() == ["EONET_9002", "EONET_9004", "EONET_9006"])
    }
}
