import Foundation
import TestSupport
import Testing

@testable import MonitorCore

#if canImport(Glibc)
    import Glibc
#endif

/// A feeds file of one exec feed that finds nothing, polled hourly (plus `extra`, more feeds).
private func quietFeeds(_ extra: String = "") -> String {
    """
    feeds:
      - name: quiet
        type: exec
        command: [cat, items.jsonl]
        interval: 1h
    \(extra)
    """
}

/// Whether `message` is `RELOADING=1` with the monotonic time systemd 253 and later want with it.
private func isReloading(_ message: String) -> Bool {
    message.wholeMatch(of: /RELOADING=1\nMONOTONIC_USEC=[1-9][0-9]*/) != nil
}

/// A directory with the quiet feeds file and its empty items, and a notify socket bound in it (or at an abstract
/// name); `monitor run` started there with `NOTIFY_SOCKET` and `environment`.
private func startNotifying(abstract: Bool = false, environment: [String: String] = [:]) async throws -> (
    TemporaryDirectory, NotifyListener, RunningMonitor
) {
    let directory = try TemporaryDirectory()
    try directory.write("feeds.yaml", quietFeeds())
    try directory.write("items.jsonl", "")
    let listener = try NotifyListener(
        abstract ? "@monitor-test-\(UUID().uuidString)" : directory.url.appendingPathComponent("notify").path)
    let monitor = try await RunningMonitor(
        ["run", "--state", "state"], in: directory.url,
        environment: environment.merging(["NOTIFY_SOCKET": listener.address]) { $1 })
    return (directory, listener, monitor)
}

@Suite("`monitor run` speaks systemd's notify protocol on NOTIFY_SOCKET", .timeLimit(.minutes(5)))
struct SystemdNotifyTests {
    @Test("READY=1 once scheduled; RELOADING=1 … READY=1 around a SIGHUP and a changed file; STOPPING=1 at the end")
    func startReloadStop() async throws {
        let (directory, listener, monitor) = try await startNotifying()
        defer { listener.close() }
        #expect(try await listener.wait(for: 1, while: monitor) == ["READY=1"])
        // SIGHUP reloads the unchanged file.
        monitor.send(SIGHUP)
        var messages = try await listener.wait(for: 3, while: monitor)
        #expect(messages.count == 3 && isReloading(messages[1]) && messages[2] == "READY=1", "\(messages)")
        try await monitor.waitForOutput { $0.contains("feeds.yaml reloaded: no feed changed") }
        // The watcher sees a change of the file (replaced in one step: it never reads half of it).
        try directory.write(
            "feeds.yaml",
            quietFeeds(
                """
                  - name: second
                    type: exec
                    command: [cat, items.jsonl]
                    interval: 1h
                """), atomically: true)
        messages = try await listener.wait(for: 5, while: monitor)
        #expect(messages.count == 5 && isReloading(messages[3]) && messages[4] == "READY=1", "\(messages)")
        try await monitor.waitForOutput { $0.contains("feeds.yaml reloaded: started second") }
        monitor.send(SIGTERM)
        #expect(try await monitor.waitForExit() == 0, "\(monitor.stderr)")
        // Every datagram sent is in the socket's queue before `monitor` exits.
        messages = try await listener.wait(for: 6)
        #expect(messages.count == 6 && messages[5] == "STOPPING=1", "\(messages)")
        #expect(monitor.stderr == "")
    }

    @Test("STATUS= says how the feeds fare when that changes, never twice the same")
    func status() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "feeds.yaml",
            quietFeeds(
                """
                  - name: broken
                    type: exec
                    command: ["false"]
                    interval: 1h
                """))
        try directory.write("items.jsonl", "")
        let listener = try NotifyListener(directory.url.appendingPathComponent("notify").path)
        defer { listener.close() }
        let monitor = try await RunningMonitor(
            ["run", "--state", "state"], in: directory.url, environment: ["NOTIFY_SOCKET": listener.address])
        let expected = "STATUS=2 feeds: 1 ok, 1 failing, 0 held back; 0 notifications pending"
        try await listener.wait(while: monitor) { $0.contains(expected) }
        monitor.send(SIGTERM)
        #expect(try await monitor.waitForExit() == 0, "\(monitor.stderr)")
        // Read up to a marker the test sends after the exit: every message `monitor` sent is before it.
        _ = try await listener.mark()
        let statuses = listener.messages.filter { $0.hasPrefix("STATUS=") }
        #expect(statuses.last == expected)
        #expect(zip(statuses, statuses.dropFirst()).allSatisfy { $0 != $1 }, "\(statuses)")
        #expect(statuses.allSatisfy { $0.hasSuffix("; 0 notifications pending") }, "\(statuses)")
    }

    @Test("an abstract socket (@name) gets the same messages")
    func abstractSocket() async throws {
        let (directory, listener, monitor) = try await startNotifying(abstract: true)
        // The directory is removed when it goes: kept until the end.
        defer { withExtendedLifetime(directory) { listener.close() } }
        #expect(try await listener.wait(for: 1, while: monitor) == ["READY=1"])
        monitor.send(SIGINT)
        #expect(try await monitor.waitForExit() == 0, "\(monitor.stderr)")
        #expect(try await listener.wait(for: 2) == ["READY=1", "STOPPING=1"])
    }

    @Test("`run --once` sends nothing")
    func onceSendsNothing() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", quietFeeds())
        try directory.write("items.jsonl", "")
        let listener = try NotifyListener(directory.url.appendingPathComponent("notify").path)
        defer { listener.close() }
        let run = try await MonitorProcess.run(
            ["run", "--once", "--state", "state"], in: directory.url,
            environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "100000"])
        #expect(run.status == 0, "\(run.stderr)")
        // Sent datagrams are queued before `sendto` returns: after the exit, none can come after the test's marker.
        #expect(try await listener.mark() == [NotifyListener.marker])
    }

    @Test(
        "a rejected reload: STATUS=, /healthz and the metrics say so until a reload succeeds; stderr has every error")
    func rejectedReload() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", quietFeeds())
        try directory.write("items.jsonl", "")
        let listener = try NotifyListener(directory.url.appendingPathComponent("notify").path)
        defer { listener.close() }
        let started = Date().timeIntervalSince1970
        let monitor = try await RunningMonitor(
            ["run", "--state", "state", "--metrics", "127.0.0.1:0"], in: directory.url,
            environment: ["NOTIFY_SOCKET": listener.address])
        let errors = try await monitor.waitForErrors { $0.contains("/metrics\n") }
        let base = String(try #require(errors.firstMatch(of: /metrics on (http:\/\/127\.0\.0\.1:[0-9]+)\//)?.output.1))
        let healthy = "STATUS=1 feed: 1 ok, 0 failing, 0 held back; 0 notifications pending"
        let lastStatus = { @Sendable (messages: [String]) in messages.last { $0.hasPrefix("STATUS=") } }
        try await listener.wait(while: monitor) { lastStatus($0) == healthy }
        var metrics = try PrometheusText(try await fetch(base + "/metrics").2)
        #expect(metrics.value("monitor_config_last_reload_successful") == 1)
        let loaded = try #require(metrics.value("monitor_config_last_reload_success_timestamp_seconds"))
        #expect(loaded >= started.rounded(.down))

        // Line 5 made invalid: the feeds run on, and every view says so (STATUS= last: the others come first).
        try directory.write(
            "feeds.yaml", quietFeeds().replacingOccurrences(of: "interval: 1h", with: "interval: soon"),
            atomically: true)
        let rejected = "feeds file invalid (line 5): running the last valid one"
        try await listener.wait(while: monitor) { lastStatus($0) == "STATUS=\(rejected); " + healthy.dropFirst(7) }
        let (status, _, body) = try await fetch(base + "/healthz")
        // A note, not a problem: a probe that restarted the service would leave it unable to start.
        #expect(status == 200)
        #expect(body == "ok\n" + rejected + "\n")
        metrics = try PrometheusText(try await fetch(base + "/metrics").2)
        #expect(metrics.value("monitor_config_last_reload_successful") == 0)
        #expect(metrics.value("monitor_config_last_reload_success_timestamp_seconds") == loaded)
        #expect(monitor.stderr.contains("feeds.yaml changed but is invalid; still running the last valid feeds:\n"))

        // Valid again: every view back to what it said.
        try directory.write("feeds.yaml", quietFeeds(), atomically: true)
        try await listener.wait(while: monitor) { lastStatus($0) == healthy }
        #expect(try await fetch(base + "/healthz").2 == "ok\n")
        metrics = try PrometheusText(try await fetch(base + "/metrics").2)
        #expect(metrics.value("monitor_config_last_reload_successful") == 1)
        #expect(try #require(metrics.value("monitor_config_last_reload_success_timestamp_seconds")) > loaded)
        monitor.send(SIGTERM)
        #expect(try await monitor.waitForExit() == 0, "\(monitor.stderr)")
    }

    @Test("a notify socket nobody reads, its queue full: the feeds are polled, and SIGTERM stops `monitor`")
    func fullQueue() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", quietFeeds())
        try directory.write("items.jsonl", "")
        let path = directory.url.appendingPathComponent("notify").path
        let socket = try filledSocket(at: path)
        defer { close(socket) }
        let monitor = try await RunningMonitor(
            ["run", "--state", "state"], in: directory.url,
            environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"])
        // A blocking send would hold the cooperative threads before the poll is shown.
        try await monitor.waitForOutput { $0.contains(" quiet: ok, 0 items, 0 new\n") }
        monitor.send(SIGTERM)
        #expect(try await monitor.waitForExit() == 0, "\(monitor.stderr)")
        #expect(monitor.stderr == "")
    }

    @Test(
        "a NOTIFY_SOCKET that cannot be used is said once on standard error; the run goes on",
        arguments: [
            ("relative/notify", "it is neither an absolute path nor an @name"),
            ("/nonexistent/notify", "No such file or directory"),
        ])
    func unusableSocket(_ socket: String, reason: String) async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", quietFeeds())
        try directory.write("items.jsonl", "")
        let monitor = try await RunningMonitor(
            ["run", "--state", "state"], in: directory.url, environment: ["NOTIFY_SOCKET": socket])
        let warning = "monitor: warning: NOTIFY_SOCKET=\(socket) cannot be used (\(reason)): systemd is told nothing\n"
        _ = try await monitor.waitForErrors { $0.contains(warning) }
        // READY=1 and STATUS= failed before the poll is shown; STOPPING=1 fails after SIGTERM: still said once.
        try await monitor.waitForOutput { $0.contains(" quiet: ok, 0 items, 0 new\n") }
        monitor.send(SIGTERM)
        #expect(try await monitor.waitForExit() == 0, "\(monitor.stderr)")
        #expect(monitor.stderr == warning)
    }

    /// A datagram socket bound at `path` whose queue is filled up and never read, as a hung supervisor's.
    private func filledSocket(at path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var name = sockaddr_un()
        name.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &name.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let bound = withUnsafePointer(to: &name) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        // Sent to itself without waiting until the queue takes no more.
        let message = Array("FILL".utf8)
        while withUnsafePointer(
            to: &name,
            {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, message, message.count, Int32(MSG_DONTWAIT), $0, length)
                }
            }) > 0
        {}
        guard errno == EAGAIN else { throw POSIXError(.EIO) }
        return descriptor
    }
}
