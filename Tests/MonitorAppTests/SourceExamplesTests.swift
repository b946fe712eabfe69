import EONETSource
import ExecSource
import Foundation
import GitHubSource
import JSONAPISource
import MonitorOptions
import TestSupport
import Testing
import WebFeedSource

@testable import MonitorApp
@testable import MonitorCore

/// A source with examples: recorded answers with what it must make of them. Each source's are in `Examples/`,
/// the way a linter keeps its rules' examples beside the rules, here beside the test that runs them.
protocol Exemplified: FeedSource {
    static var examples: [SourceExample] { get }
}

extension EONETSource: Exemplified {}
extension ExecSource: Exemplified {}
extension GitHubSource: Exemplified {}
extension JSONAPISource: Exemplified {}
extension WebFeedSource: Exemplified {}
extension QuakeSource: Exemplified {}

/// One example of one source, named for the test's output.
struct ExampleCase: Sendable, CustomTestStringConvertible {
    var source: any FeedSource.Type
    var example: SourceExample

    var testDescription: String { "\(source.type): \(example.name)" }

    /// The examples of `source`, none when it has none.
    static func examples(of source: any FeedSource.Type) -> [SourceExample] {
        (source as? any Exemplified.Type)?.examples ?? []
    }

    /// Every example of each of `sources`.
    static func all(of sources: [any FeedSource.Type]) -> [ExampleCase] {
        sources.flatMap { source in examples(of: source).map { ExampleCase(source: source, example: $0) } }
    }
}

@Suite("Every example of every source, the way a linter runs its rules' examples")
struct SourceExamplesTests {
    /// The registered sources and the one written in this target from docs/architecture.md.
    static let sources: [any FeedSource.Type] = Registry.sources + [QuakeSource.self]

    @Test(
        "each poll of the example ends as it says, with its items, groups and new count",
        arguments: ExampleCase.all(of: sources))
    func example(_ example: ExampleCase) async throws {
        try await Self.run(example.source, example.example)
    }

    @Test(
        "every registered source ships examples, with a poll that changes nothing (a 304, `unchanged`) and a failed part",
        arguments: Registry.sources.map { $0.type })
    func coverage(_ type: String) throws {
        let source = try #require(Registry.source(named: type))
        let examples = ExampleCase.examples(of: source)
        try #require(!examples.isEmpty, "\(type) ships no examples")
        let statuses = examples.flatMap(\.polls).map(\.expect.status)
        #expect(statuses.contains(.notModified))
        #expect(statuses.contains(.partial))
    }

    @Test("a replace source that forgets to say `unchanged` on a 304 fails its examples: it loses its items")
    func forgetfulSourceFails() async throws {
        await withKnownIssue {
            try await Self.run(ForgetfulQuakeSource.self, QuakeSource.examples[0])
        }
    }

    /// Polls `example`'s polls in order against one state, each answered from its recorded answers.
    static func run<Source: FeedSource>(_ source: Source.Type, _ example: SourceExample) async throws {
        let harness = PollHarness()
        let feed = PollHarness.feed(source, name: "example", options: example.options)
        for (index, poll) in example.polls.enumerated() {
            let before = try await harness.store.items(feed: "example")
            let transport = StubTransport { request in poll.answers[request.url] ?? HTTPResponse(status: 404) }
            let report = await harness.poll(source, feed: feed, transport: transport).report
            let after = try await harness.store.items(feed: "example")
            let label: Comment = "poll \(index + 1): \(report.error ?? "no error")"
            let unanswered = transport.requests.map(\.url).filter { poll.answers[$0] == nil }
            #expect(unanswered == [], label)
            #expect(report.status == poll.expect.status, label)
            #expect(after.map(\.id) == poll.expect.items, label)
            #expect(report.items == poll.expect.items.count, label)
            #expect(
                Dictionary(uniqueKeysWithValues: report.groups.map { ($0.id, $0.count) }) == poll.expect.groups, label)
            #expect(report.new == poll.expect.new, label)
            if poll.expect.status == .notModified || poll.expect.status == .failed {
                // Nothing changed, or nothing of the poll was stored: the stored items are exactly those before.
                #expect(after == before, label)
            }
        }
    }
}

/// `QuakeSource` without its `found.unchanged()`: the mistake the examples exist to catch.
private struct ForgetfulQuakeSource: FeedSource {
    static let type = "forgetful"
    static let summary = "QuakeSource, forgetting what a 304 means"
    static let options = QuakeSource.options
    let quakes: QuakeSource

    init(options: FeedOptions) { quakes = QuakeSource(options: options) }

    var retention: ItemRetention { .replace }

    func poll(_ context: PollContext, _ found: Findings) async throws {
        let response = try await context.http.get(quakes.url)
        guard response.status == 200 else { return }
        let list = try JSONDecoder().decode(QuakeList.self, from: Data(response.body))
        for quake in list.features where quake.properties.mag >= Double(quakes.minimum) { found.item(quake.item) }
    }
}
