import Foundation
import Logging
import MonitorConcurrency
import MonitorItems
import MonitorOptions
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorJSON

/// A source whose poll is the test's closure.
private struct ClosureSource: FeedSource {
    static let type = "closure"
    static let summary = "A poll written by the test"
    static let options: [any OptionDeclaration] = []
    let body: @Sendable (Findings) async throws -> Void

    init(options: FeedOptions) { body = { _ in } }

    init(_ body: @escaping @Sendable (Findings) async throws -> Void) { self.body = body }

    var retention: ItemRetention { .replace }

    func poll(_ context: PollContext, _ found: Findings) async throws { try await body(found) }
}

@Suite("Findings: what a source reports becomes the poll's stream, built by the core")
struct FindingsTests {
    static let context = PollContext(
        feed: "f", options: FeedOptions(),
        http: FeedHTTP(
            transport: StubTransport { _ in HTTPResponse(status: 200) }, policy: HTTPPolicy(settings: Settings()),
            limiters: [], logger: Logger(label: "test")),
        values: SourceValues([:]), logger: Logger(label: "test"), clock: WallClock(), concurrency: 1)

    /// An update as one line.
    static func line(_ update: SourceUpdate) -> String {
        switch update {
        case .groups(let groups): "groups \(groups.map(\.id))"
        case .progress(let done, let total): "progress \(done)/\(total.map(String.init) ?? "?")"
        case .items(let items): "items \(items.map(\.id))"
        case .failure(let failure): "failure \(failure.what) \(failure.group ?? "-")"
        case .completed(let groups): "completed \(groups)"
        case .unchanged(let groups): "unchanged \(groups)"
        case .feedUnchanged: "feed unchanged"
        case .gap(let gap): "gap \(gap.until.map { ISO8601.fixedString($0) } ?? "-") \(gap.message ?? "-")"
        case .note(let message): "note \(message)"
        }
    }

    @Test("every report arrives in order, empty item lists are left out, and the stream ends when poll returns")
    func inOrder() async throws {
        let source = ClosureSource { found in
            found.groups([ItemGroup(id: "a", title: "A")])
            found.progress(done: 0, total: 2)
            found.items([])
            found.item(Item(id: "x", title: "x", date: Date(timeIntervalSince1970: 0), groups: ["a"]))
            found.completed(["a"])
            found.failed("group 'b'", "HTTP 500", group: "b")
            found.unchanged(groups: ["c"])
            found.completed()
            found.unchanged()
            found.gap(until: Date(timeIntervalSince1970: 0))
            found.gap(message: "rotated\u{1b}[2J")
        }
        var lines: [String] = []
        try await source.forEachUpdate(Self.context) { lines.append(Self.line($0)) }
        #expect(
            lines == [
                #"groups ["a"]"#, "progress 0/2", #"items ["x"]"#, #"completed ["a"]"#, "failure group 'b' b",
                #"unchanged ["c"]"#, "completed []", "feed unchanged", "gap 1970-01-01T00:00:00Z -",
                "gap - rotated",
            ])
    }

    @Test("what the poll throws ends the stream with that error, after what it reported")
    func throwing() async throws {
        let source = ClosureSource { found in
            found.progress(done: 1, total: nil)
            throw SourceError("bad answer")
        }
        var lines: [String] = []
        await #expect(throws: SourceError("bad answer")) {
            try await source.forEachUpdate(Self.context) { lines.append(Self.line($0)) }
        }
        #expect(lines == ["progress 1/?"])
    }

    @Test("cancelling the consumer cancels the source's poll")
    func cancellation() async throws {
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let (ended, endedContinuation) = AsyncStream<Bool>.makeStream()
        let source = ClosureSource { _ in
            startedContinuation.finish()
            // Waits for nothing until cancelled.
            let (never, keep) = AsyncStream<Void>.makeStream()
            for await _ in never {}
            endedContinuation.yield(Task.isCancelled)
            endedContinuation.finish()
            withExtendedLifetime(keep) {}
        }
        let consumer = Task {
            try await source.forEachUpdate(Self.context) { _ in }
        }
        for await _ in started {}
        consumer.cancel()
        _ = await consumer.result
        var cancelled: [Bool] = []
        for await value in ended { cancelled.append(value) }
        #expect(cancelled == [true])
    }
}
