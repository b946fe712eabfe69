import Foundation
import LoopbackHTTP
import MonitorItems
import MonitorSQLite
import TestSupport
import Testing

@testable import MonitorCore

/// A state directory holding one stored feed, `planet`, with two items.
private func storedPlanet(in directory: TemporaryDirectory) async throws {
    let store = try SQLiteStateStore(directory: directory.url.appendingPathComponent("state"))
    var record = FeedRecord(name: "planet", type: "eonet")
    record.status = "ok"
    record.itemCount = 2
    record.lastPoll = Date()
    let items = (1...2).map {
        Item(
            id: "E\($0)", title: "Fire \($0)", date: Date(timeIntervalSince1970: 1_700_000_000 + Double($0)), groups: []
        )
    }
    try await store.commit(
        PollCommit(record: record, items: items, firstSeen: Date(), groups: nil, validators: [:], values: [:]),
        feed: "planet")
}

/// EONET at `{server}/api/v3`.
private func planetServer() async throws -> TestHTTPServer {
    try await TestHTTPServer.start(eonetAnswer)
}

@Suite("A standard output that is full, closed or has no reader", .timeLimit(.minutes(5)))
struct OutputFailureTests {
    static let diskFull = "monitor: error: cannot write to standard output: the disk is full\n"

    @Test(
        "a full disk (/dev/full) is an error message and exit 1",
        arguments: [["events", "planet", "--state", "state"], ["status", "--state", "state"]])
    func fullDisk(arguments: [String]) async throws {
        let directory = try TemporaryDirectory()
        try await storedPlanet(in: directory)
        let result = try await RedirectedMonitor.run(arguments, output: .file("/dev/full"), in: directory.url)
        #expect(result.status == 1)
        #expect(result.stderr == Self.diskFull)
    }

    @Test("a closed standard output (>&-) is an error message and exit 1, and the state is not written to")
    func closedOutput() async throws {
        let directory = try TemporaryDirectory()
        try await storedPlanet(in: directory)
        let result = try await RedirectedMonitor.run(
            ["status", "--state", "state"], output: .closed, in: directory.url)
        #expect(result.status == 1)
        #expect(result.stderr == "monitor: error: cannot write to standard output: it is closed\n")
        let store = try SQLiteStateStore(directory: directory.url.appendingPathComponent("state"))
        #expect(try await store.items(feed: "planet").map(\.title) == ["Fire 2", "Fire 1"])
    }

    @Test(
        "a pipe whose reader has gone ends the command quietly with exit 0",
        arguments: [["events", "planet", "--state", "state"], ["status", "--state", "state"]])
    func brokenPipe(arguments: [String]) async throws {
        let directory = try TemporaryDirectory()
        try await storedPlanet(in: directory)
        let result = try await RedirectedMonitor.run(arguments, output: .brokenPipe, in: directory.url)
        #expect(result.status == 0)
        #expect(result.stderr == "")
    }

    @Test("run, once or continuously, into a pipe whose reader has gone ends quietly with exit 0")
    func runIntoBrokenPipe() async throws {
        let server = try await planetServer()
        defer { Task { try? await server.shutdown() } }
        let directory = try TemporaryDirectory()
        try directory.write(
            "feeds.yaml", "feeds:\n  - name: planet\n    type: eonet\n    api: \(server.baseURL)/api/v3\n")
        for arguments in [["run", "--once", "--state", "state"], ["run", "--state", "state"]] {
            let result = try await RedirectedMonitor.run(arguments, output: .brokenPipe, in: directory.url)
            #expect(result.status == 0, "\(arguments)")
            #expect(result.stderr == "", "\(arguments)")
        }
    }

    @Test("run --once into a full disk is an error message and exit 1")
    func runIntoFullDisk() async throws {
        let server = try await planetServer()
        defer { Task { try? await server.shutdown() } }
        let directory = try TemporaryDirectory()
        try directory.write(
            "feeds.yaml", "feeds:\n  - name: planet\n    type: eonet\n    api: \(server.baseURL)/api/v3\n")
        let result = try await RedirectedMonitor.run(
            ["run", "--once", "--state", "state"], output: .file("/dev/full"), in: directory.url)
        #expect(result.status == 1)
        #expect(result.stderr == Self.diskFull)
    }
}
