import Foundation
import Logging
import MonitorSQLite
import ServiceLifecycle
import TestSupport
import Testing

@testable import MonitorApp
@testable import MonitorCore

/// Lines written by the service, collected for assertions.
private final class Lines: Sendable {
    private let lines = Watched<[String]>([])

    func append(_ text: String) { lines.update { $0.append(text) } }

    var all: [String] { lines.value }

    /// Waits until a line satisfies `predicate`; `what` names it.
    func wait(for what: String, _ predicate: @escaping @Sendable (String) -> Bool) async throws {
        do {
            try await lines.wait { $0.contains(where: predicate) }
        } catch {
            Issue.record("no line \(what) in \(all)")
            throw error
        }
    }
}

/// The options of these tests: the scripted feeds of `path` on `store`, polled through `transport`, JSON lines to
/// `output` and problems to `errors`, the file checked every 20 ms, no stagger.
private func serviceOptions(
    path: String, store: any StateStoring, transport: StubTransport, output: Lines, errors: Lines
) -> MonitorService.Options {
    var options = MonitorService.Options(configPath: path, store: store)
    options.sources = [ScriptedSource.self]
    options.environment = [:]
    options.format = .json
    options.watchInterval = .milliseconds(20)
    options.stagger = .zero
    options.output = { text in output.append(text) }
    options.errors = { text in errors.append(text) }
    options.makeTransport = { _ in (transport, {}) }
    return options
}

/// The line of a scripted feed `name` polling `http://x/name` every hour.
private func scriptedFeed(_ name: String) -> String {
    "  - {name: \(name), type: scripted, urls: [\"http://x/\(name)\"], interval: 1h}\n"
}

@Suite("monitor run as a long-running service", .timeLimit(.minutes(5)))
struct MonitorServiceTests {
    @Test("editing the feeds file while it runs: valid, then invalid, then valid again")
    func editsTheConfig() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStateStore(directory: directory.url.appendingPathComponent("state"))
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array("1".utf8)) }
        let path = try directory.write("feeds.yaml", "feeds:\n" + scriptedFeed("a")).path
        let loader = ConfigLoader(sources: [ScriptedSource.self], environment: [:])
        let config = try #require(loader.load(path: path).config)

        let output = Lines()
        let errors = Lines()
        let options = serviceOptions(path: path, store: store, transport: transport, output: output, errors: errors)
        let service = MonitorService(config: config, options: options)
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await output.wait(for: "a polled") { $0.contains(#""feed":"a""#) }

            // Each edit is saved atomically: a half-written file would be (rightly) reported as an error of its own.
            // Valid: b added, a removed.
            try directory.write("feeds.yaml", "feeds:\n" + scriptedFeed("b"), atomically: true)
            try await output.wait(for: "b polled") { $0.contains(#""feed":"b""#) }

            // Invalid: reported with line and column; b keeps running.
            try directory.write(
                "feeds.yaml", "feeds:\n" + scriptedFeed("b") + "  - {name: c, type: scripted, mode: sideways}\n",
                atomically: true)
            try await errors.wait(for: "the error") {
                $0.contains("feeds.yaml:3:37: error: 'mode' must be one of replace, keep")
            }

            // Valid again: c starts.
            try directory.write("feeds.yaml", "feeds:\n" + scriptedFeed("b") + scriptedFeed("c"), atomically: true)
            try await output.wait(for: "c polled") { $0.contains(#""feed":"c""#) }

            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let polled = Set(transport.requests.map(\.url))
        #expect(polled == ["http://x/a", "http://x/b", "http://x/c"])
        // b was neither restarted by the invalid edit nor by the second valid one: one poll (interval 1h).
        #expect(transport.requests.filter { $0.url == "http://x/b" }.count == 1)
        #expect(try await store.records().map(\.name) == ["a", "b", "c"])
        #expect(errors.all.count == 1)
    }

    @Test("an edit that changes the settings and removes a feed restarts the others and says the removed one stopped")
    func settingsAndRemoval() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStateStore(directory: directory.url.appendingPathComponent("state"))
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array("1".utf8)) }
        let path = try directory.write("feeds.yaml", "feeds:\n" + scriptedFeed("a") + scriptedFeed("b")).path
        let loader = ConfigLoader(sources: [ScriptedSource.self], environment: [:])
        let config = try #require(loader.load(path: path).config)

        let output = Lines()
        let errors = Lines()
        var options = serviceOptions(path: path, store: store, transport: transport, output: output, errors: errors)
        options.format = .text
        let service = MonitorService(config: config, options: options)
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await output.wait(for: "b polled") { $0.contains(" b: ") }
            try directory.write(
                "feeds.yaml", "settings: {timeout: 20s}\nfeeds:\n" + scriptedFeed("a"), atomically: true)
            try await output.wait(for: "the reload") { $0.contains("reloaded:") }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        // The feed's line (after the time), then the reload's.
        let said = output.all.filter { $0.contains("stopped") }
        #expect(said.count == 2)
        #expect(said.first?.drop { $0 != " " } == " b: removed from the feeds file; stopped\n")
        #expect(said.last == "\(path) reloaded: settings changed, restarted every feed; stopped b\n")
    }

    @Test("a feeds file changed after it was read, before the watch starts (while the state opened), is reloaded")
    func changedWhileStarting() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStateStore(directory: directory.url.appendingPathComponent("state"))
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array("1".utf8)) }
        let read = "feeds:\n" + scriptedFeed("a")
        let path = try directory.write("feeds.yaml", read).path
        let loader = ConfigLoader(sources: [ScriptedSource.self], environment: [:])
        let config = try #require(loader.load(path: path).config)
        // Edited once it was read.
        try directory.write("feeds.yaml", "feeds:\n" + scriptedFeed("b"), atomically: true)

        let output = Lines()
        let errors = Lines()
        var options = serviceOptions(path: path, store: store, transport: transport, output: output, errors: errors)
        options.configText = read
        let service = MonitorService(config: config, options: options)
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await output.wait(for: "b polled") { $0.contains(#""feed":"b""#) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        // a may or may not have been polled before the reload stopped it; b once.
        #expect(transport.requests.filter { $0.url == "http://x/b" }.count == 1)
        #expect(errors.all.isEmpty)
    }

    @Test("a feeds file removed while it runs is reported as removed, not as empty, and the feeds keep running")
    func removedConfig() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStateStore(directory: directory.url.appendingPathComponent("state"))
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array("1".utf8)) }
        let text = "feeds:\n  - {name: a, type: scripted, urls: [\"http://x/a\"], interval: 1h}\n"
        let path = try directory.write("feeds.yaml", text).path
        let loader = ConfigLoader(sources: [ScriptedSource.self], environment: [:])
        let config = try #require(loader.load(path: path).config)

        let output = Lines()
        let errors = Lines()
        let options = serviceOptions(path: path, store: store, transport: transport, output: output, errors: errors)
        let service = MonitorService(config: config, options: options)
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await output.wait(for: "a polled") { $0.contains(#""feed":"a""#) }
            try FileManager.default.removeItem(atPath: path)
            try await errors.wait(for: "the removal") { $0.contains("was removed") }
            // Back with a second feed: read again as usual.
            try directory.write(
                "feeds.yaml", text + "  - {name: b, type: scripted, urls: [\"http://x/b\"], interval: 1h}\n")
            try await output.wait(for: "b polled") { $0.contains(#""feed":"b""#) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(errors.all == ["\(path) was removed; still running the last valid feeds until it is back\n"])
        // a was not restarted by the removal nor by the file's return: one poll (interval 1h).
        #expect(transport.requests.map(\.url).sorted() == ["http://x/a", "http://x/b"])
    }

    @Test("ready once every feed is scheduled, before any poll ended, and no longer once stopping; health follows")
    func readinessAndHealth() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStateStore(directory: directory.url.appendingPathComponent("state"))
        // a's request is answered 500 once the test has seen the service ready; b's 200.
        let released = Watched(false)
        let transport = StubTransport { request in
            guard request.url == "http://x/a" else { return HTTPResponse(status: 200, body: Array("1".utf8)) }
            try await released.wait { $0 }
            return HTTPResponse(status: 500, body: Array("down".utf8))
        }
        let settings = "settings: {retries: 0}\nfeeds:\n"
        let path = try directory.write("feeds.yaml", settings + scriptedFeed("a")).path
        let loader = ConfigLoader(sources: [ScriptedSource.self], environment: [:])
        let config = try #require(loader.load(path: path).config)

        let output = Lines()
        var options = serviceOptions(path: path, store: store, transport: transport, output: output, errors: Lines())
        let health = RunHealth()
        options.health = health
        let readiness = options.readiness
        #expect(!readiness.isReady)
        let (ready, becameReady) = AsyncStream<Void>.makeStream()
        readiness.observe { if $0 == .ready { becameReady.yield() } }
        let service = MonitorService(config: config, options: options)
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for await _ in ready { break }
            #expect(readiness.isReady)
            // Scheduled, its poll not ended: within its first interval.
            #expect(health.problems(now: Date()) == [])
            released.update { $0 = true }
            try await output.wait(for: "a polled") { $0.contains(#""feed":"a""#) }
            let report = try #require(
                output.all.compactMap { line in
                    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                }.first)
            let error = try #require(report["error"] as? String)
            let problems = health.problems(now: Date())
            #expect(problems.count == 1)
            let failing = /a: failing since (?:[0-9]{4}-[0-9]{2}-[0-9]{2} )?[0-9]{2}:[0-9]{2}:[0-9]{2} UTC: (.*)/
            #expect(problems.first?.wholeMatch(of: failing)?.output.1 == Substring(error))

            // a removed, b added: b's poll succeeds, a is forgotten.
            try directory.write("feeds.yaml", settings + scriptedFeed("b"), atomically: true)
            try await output.wait(for: "b polled") { $0.contains(#""feed":"b""#) }
            #expect(health.problems(now: Date()) == [])
            #expect(readiness.isReady)

            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(!readiness.isReady)
    }
}
