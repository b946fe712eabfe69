import Foundation
import Logging
import LoopbackHTTP
import MonitorOptions
import MonitorText
import ServiceLifecycle
import TestSupport
import Testing

@testable import MonitorApp
@testable import MonitorCore

/// The Prometheus exposition of `export`, read.
private func read(_ export: MetricsExport) throws -> PrometheusText {
    try PrometheusText(String(decoding: export.text(), as: UTF8.self))
}

/// Runs a metrics server for `export` on 127.0.0.1 with `limits`, as a service of a group, while `body` runs; then
/// stops it. By default its deadlines are ten minutes: a busy machine can hold a test's connection for longer than the
/// server's 10 s head timeout before it sends its request (seen, for a malformed request answered nothing).
private func withMetricsServer(
    _ limits: MetricsServer.Limits = MetricsServer.Limits(headTimeout: .minutes(10), idleTimeout: .minutes(10)),
    export: MetricsExport = MetricsExport(), health: RunHealth = RunHealth(),
    readiness: ServiceReadiness = ServiceReadiness(),
    _ body: (MetricsServer) async throws -> Void
) async throws {
    let server = try await MetricsServer.bind(
        MetricsAddress(host: "127.0.0.1", port: 0), export: export, health: health, readiness: readiness,
        limits: limits)
    let group = ServiceGroup(services: [server], logger: Logger(label: "test"))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            try await body(server)
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}

/// Sends `GET /metrics` on `connection` and reads the answer.
private func get(_ connection: inout RawHTTPConnection) async throws -> (head: String, body: String) {
    try await connection.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    return try await connection.readResponse()
}

/// The exposition of `monitor_leases_held` at `count`, with its help text.
private func leasesText(_ count: Int) -> String {
    "# HELP monitor_leases_held Feeds whose lease this instance holds on a shared schedule.\n"
        + "# TYPE monitor_leases_held gauge\nmonitor_leases_held \(count).0\n"
}

/// An export whose only metric is `monitor_leases_held` at `count`, and its exposition.
private func exportHoldingLeases(_ count: Int) -> (export: MetricsExport, text: String) {
    let export = MetricsExport()
    export.metrics.leasesHeld(count)
    return (export, leasesText(count))
}

/// The head of a 404 answer.
private let notFoundHead = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 39"

/// The head of the answer to `GET /metrics` of a `body.count`-byte exposition.
private func metricsHead(_ body: String) -> String {
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: \(body.utf8.count)"
}

@Suite("metrics: what MonitorMetrics records, in a registry of each test's own")
struct MetricsTests {
    @Test("the polls of a runner: statuses, requests by code, bytes, 304s, items, rate limit, durations, last success")
    func pollsOfARunner() async throws {
        let export = MetricsExport()
        let clock = ManualClock()
        let round = Watched(1)
        // /one answers 3 items, /two 2, /three 1, each with an ETag; then /one fails to connect and /two answers
        // 500; then all three are answered 304.
        let transport = StubTransport { request in
            let name = String(request.url.split(separator: "/").last ?? "")
            let one = name == "one"
            switch (round.value, name) {
            case (1, _):
                // The first poll takes 1.5 s on the manual clock.
                if one { clock.advance(by: .milliseconds(1500)) }
                var headers: HTTPHeaders = ["ETag": #""\#(name)""#]
                if one { headers.set("X-RateLimit-Remaining", "41") }
                let count = ["one": "3", "two": "2", "three": "1"][name] ?? "0"
                return HTTPResponse(status: 200, headers: headers, body: Array(count.utf8))
            case (2, "one"):
                throw TransportError.connection("refused")
            case (2, "two"):
                return HTTPResponse(status: 500, body: Array("down".utf8))
            case (2, _):
                return HTTPResponse(status: 200, headers: ["ETag": #""\#(name)""#], body: Array("1".utf8))
            default:
                return HTTPResponse(status: 304, headers: one ? ["X-RateLimit-Remaining": "40"] : [:])
            }
        }
        let harness = PollHarness()
        var settings = Settings()
        settings.retries = 0
        var runner = PollRunner(
            store: harness.store, transport: transport, settings: settings, clock: clock,
            logger: Logger(label: "test"))
        runner.metrics = export.metrics
        let feed = PollHarness.feed(
            ScriptedSource.self, name: "s",
            options: ["urls": .list(["http://x/one", "http://x/two", "http://x/three"])])
        let source = ScriptedSource(options: feed.options)

        let first = await runner.poll(feed, source: source)
        clock.advance(by: .seconds(10))
        round.update { $0 = 2 }
        let second = await runner.poll(feed, source: source)
        clock.advance(by: .seconds(10))
        round.update { $0 = 3 }
        let third = await runner.poll(feed, source: source)
        #expect([first.status, second.status, third.status] == [.ok, .partial, .notModified])
        #expect([first.items, second.items, third.items] == [6, 6, 6] as [Int])
        #expect([first.new, second.new, third.new] == [6, 0, 0] as [Int])

        let metrics = try read(export)
        let s = ["feed": "s"]
        let expected: Set<PrometheusText.Sample> = [
            .init("monitor_polls_total", ["feed": "s", "status": "ok"], 1),
            .init("monitor_polls_total", ["feed": "s", "status": "partial"], 1),
            .init("monitor_polls_total", ["feed": "s", "status": "not_modified"], 1),
            .init("monitor_http_requests_total", ["feed": "s", "code": "200"], 4),
            .init("monitor_http_requests_total", ["feed": "s", "code": "error"], 1),
            .init("monitor_http_requests_total", ["feed": "s", "code": "500"], 1),
            .init("monitor_http_requests_total", ["feed": "s", "code": "304"], 3),
            .init("monitor_http_not_modified_total", s, 3),
            .init("monitor_http_response_bytes_total", s, 8),
            .init("monitor_items", s, 6),
            .init("monitor_new_items_total", s, 6),
            .init("monitor_rate_limit_remaining", ["origin": "http://x:80", "resource": "core"], 40),
            .init("monitor_last_success_timestamp_seconds", s, 1_800_000_021.5),
            .init("monitor_poll_duration_seconds_bucket", ["feed": "s", "le": "0.05"], 2),
            .init("monitor_poll_duration_seconds_bucket", ["feed": "s", "le": "0.1"], 2),
            .init("monitor_poll_duration_seconds_bucket", ["feed": "s", "le": "0.25"], 2),
            .init("monitor_poll_duration_seconds_bucket", ["feed": "s", "le": "0.5"], 2),
            .init("monitor_poll_duration_seconds_bucket", ["feed": "s", "le": "1.0"], 2),
            .init("monitor_poll_duration_seconds_bucket", ["feed": "s", "le": "2.5"], 3),
            .init("monitor_poll_duration_seconds_bucket", ["feed": "s", "le": "5.0"], 3),
            .init("monitor_poll_duration_seconds_bucket", ["feed": "s", "le": "10.0"], 3),
            .init("monitor_poll_duration_seconds_bucket", ["feed": "s", "le": "30.0"], 3),
            .init("monitor_poll_duration_seconds_bucket", ["feed": "s", "le": "60.0"], 3),
            .init("monitor_poll_duration_seconds_bucket", ["feed": "s", "le": "+Inf"], 3),
            .init("monitor_poll_duration_seconds_sum", s, 1.5),
            .init("monitor_poll_duration_seconds_count", s, 3),
        ]
        #expect(Set(metrics.samples) == expected)
        #expect(metrics.samples.count == expected.count)
    }

    @Test("a cancelled poll counts its requests but not itself")
    func cancelledPoll() async throws {
        let export = MetricsExport()
        let asked = Rendezvous(2)
        let transport = StubTransport { _ in
            await asked.arrive()
            // A server that never answers: the request ends when the poll is cancelled.
            let (never, continuation) = AsyncStream<Void>.makeStream()
            for await _ in never {}
            continuation.finish()
            throw CancellationError()
        }
        let harness = PollHarness()
        var runner = PollRunner(
            store: harness.store, transport: transport, settings: Settings(), logger: Logger(label: "test"))
        runner.metrics = export.metrics
        let feed = PollHarness.feed(ScriptedSource.self, name: "s", options: ["urls": .list(["http://x/one"])])
        let poll = Task { await runner.poll(feed, source: ScriptedSource(options: feed.options)) }
        await asked.arrive()
        poll.cancel()
        let report = await poll.value
        #expect(report.status == .failed)
        #expect(report.error == "cancelled")
        let metrics = try read(export)
        #expect(metrics.samples == [.init("monitor_http_requests_total", ["feed": "s", "code": "error"], 1)])
    }

    @Test("notifications and leases; label values escaped, control characters dropped, secrets cut from URLs")
    func notificationsLeasesAndLabels() throws {
        let export = MetricsExport()
        let metrics = export.metrics
        metrics.notificationsPending(notifier: "team-slack", count: 4)
        metrics.notificationsPending(notifier: "team-slack", count: 2)
        metrics.notificationFailed(notifier: "ops mail")
        metrics.notificationFailed(notifier: "ops mail")
        metrics.notificationFailed(notifier: "https://hooks.slack.com/services/T000/B000/XXXXSECRET")
        metrics.leasesHeld(7)
        let requests = metrics.requests(feed: "say \"hi\" \\ there\nnow\u{1B}[31m red\u{7}")
        requests.answered(status: 200, bytes: 10)
        requests.rateLimit(
            RateLimit(headers: ["x-ratelimit-remaining": "12"])!, resource: "se\"arch\\\u{1B}[2J",
            url: "https://user:ghp_token@API.example.com/search?access_token=ghp_other")
        requests.rateLimit(RateLimit(headers: ["x-ratelimit-limit": "60"])!, resource: "core", url: "https://x/")

        let text = String(decoding: export.text(), as: UTF8.self)
        #expect(!text.contains("SECRET"))
        #expect(!text.contains("ghp_"))
        #expect(!text.contains("\u{1B}"))
        #expect(!text.contains("\u{7}"))
        #expect(text.contains(#"feed="say \"hi\" \\ there\nnow red""#))
        let feed = "say \"hi\" \\ there\nnow red"
        let expected: Set<PrometheusText.Sample> = [
            .init("monitor_notifications_pending", ["notifier": "team-slack"], 2),
            .init("monitor_notifications_failed_total", ["notifier": "ops mail"], 2),
            .init("monitor_notifications_failed_total", ["notifier": "https://hooks.slack.com"], 1),
            .init("monitor_leases_held", [:], 7),
            .init("monitor_http_requests_total", ["feed": feed, "code": "200"], 1),
            .init("monitor_http_response_bytes_total", ["feed": feed], 10),
            .init(
                "monitor_rate_limit_remaining", ["origin": "https://api.example.com:443", "resource": "se\"arch\\"], 12),
        ]
        let samples = try PrometheusText(text).samples
        #expect(Set(samples) == expected)
        #expect(samples.count == expected.count)
    }

    @Test("the real parser reads the escaped labels back")
    func realParserReadsEscapes() async throws {
        let export = MetricsExport()
        let requests = export.metrics.requests(feed: "a \"b\" \\ c\nd")
        requests.answered(status: 304, bytes: 0)
        requests.rateLimit(RateLimit(headers: ["x-ratelimit-remaining": "1"])!, resource: #"x"y\z"#, url: "http://h/")
        let text = String(decoding: export.text(), as: UTF8.self)
        let ours = try PrometheusText(text)
        #expect(ours.value("monitor_http_requests_total", ["feed": "a \"b\" \\ c\nd", "code": "304"]) == 1)
        #expect(ours.value("monitor_rate_limit_remaining", ["origin": "http://h:80", "resource": #"x"y\z"#]) == 1)
        if let parsed = try await PrometheusText.parsedByPrometheusClient(text) {
            #expect(Set(parsed.samples) == Set(ours.samples))
            #expect(parsed.types["monitor_http_requests"] == "counter")
        }
    }

    @Test("the real parser's check can fail: it refuses a malformed exposition")
    func realParserRefusesGarbage() async throws {
        // An unterminated label value: not the text format.
        let broken = "# TYPE monitor_items gauge\nmonitor_items{feed=\"a} 1.0\n"
        #expect(throws: PrometheusText.Unreadable.self) { try PrometheusText(broken) }
        do {
            if try await PrometheusText.parsedByPrometheusClient(broken) != nil {
                Issue.record("prometheus_client read a malformed exposition")
            }
        } catch let refused as PrometheusText.ParserRefused {
            #expect(refused.message.contains("Error"))
        }
    }

    @Test("a server naming a new resource in every answer shows 32 of them, then `other`")
    func resourcesAreBounded() throws {
        let export = MetricsExport()
        let requests = export.metrics.requests(feed: "a")
        for index in 0..<40 {
            requests.rateLimit(
                RateLimit(headers: ["x-ratelimit-remaining": "\(index)"])!, resource: "r\(index)", url: "http://h/")
        }
        let samples = try read(export).samples("monitor_rate_limit_remaining")
        #expect(samples.count == MonitorMetrics.resourceLimit + 1)
        #expect(Set(samples.map { $0.labels["resource"] ?? "" }) == Set((0..<32).map { "r\($0)" } + ["other"]))
        #expect(samples.first { $0.labels["resource"] == "other" }?.value == 39)
        #expect(samples.first { $0.labels["resource"] == "r31" }?.value == 31)
    }

    @Test("two exports share nothing")
    func separateRegistries() throws {
        let one = MetricsExport()
        let two = MetricsExport()
        one.metrics.leasesHeld(1)
        #expect(try read(one).samples == [.init("monitor_leases_held", [:], 1)])
        #expect(try read(two).samples == [])
    }
}

@Suite("metrics: the --metrics address and the server", .timeLimit(.minutes(5)))
struct MetricsServerTests {
    @Test(
        "accepted addresses: a bare port and localhost are 127.0.0.1; any other address only as written",
        arguments: [
            ("9464", "127.0.0.1", 9464, true), ("0", "127.0.0.1", 0, true), ("localhost:9464", "127.0.0.1", 9464, true),
            ("LocalHost:1", "127.0.0.1", 1, true), ("127.0.0.1:65535", "127.0.0.1", 65535, true),
            ("127.1.2.3:80", "127.1.2.3", 80, true), ("[::1]:9464", "::1", 9464, true),
            ("0.0.0.0:9464", "0.0.0.0", 9464, false), ("[::]:9464", "::", 9464, false),
            ("192.168.1.10:9464", "192.168.1.10", 9464, false),
        ])
    func accepted(_ text: String, host: String, port: Int, loopback: Bool) throws {
        let address = try MetricsAddress.parse(text)
        #expect(address == MetricsAddress(host: host, port: port))
        #expect(address.isLoopback == loopback)
    }

    @Test(
        "refused addresses, each with its reason",
        arguments: [
            (
                ":9464",
                "name the address to listen on: 9464 alone listens on 127.0.0.1 only, 0.0.0.0:9464 or [::]:9464 on every interface"
            ),
            (
                "*:9464",
                "name the address to listen on: 9464 alone listens on 127.0.0.1 only, 0.0.0.0:9464 or [::]:9464 on every interface"
            ),
            (
                "example.com:9464",
                "'example.com' is not an IP address; give localhost, an address of this machine, or 0.0.0.0 for every interface"
            ),
            (
                "1.2.3:80",
                "'1.2.3' is not an IP address; give localhost, an address of this machine, or 0.0.0.0 for every interface"
            ),
            ("::1:9464", "write an IPv6 address in brackets, such as [::1]:9464"),
            ("[::1]", "write an IPv6 address as [ADDRESS]:PORT, such as [::1]:9464"),
            ("[::1]9464", "write an IPv6 address as [ADDRESS]:PORT, such as [::1]:9464"),
            ("[nope]:1", "'nope' is not an IPv6 address"),
            ("65536", "the port must be a number from 0 to 65535"),
            ("-1", "the port must be a number from 0 to 65535"),
            ("94x4", "the port must be a number from 0 to 65535"),
            ("127.0.0.1:", "the port must be a number from 0 to 65535"),
            ("٩٤٦٤", "the port must be a number from 0 to 65535"),
        ])
    func refused(_ text: String, reason: String) throws {
        do {
            _ = try MonitorCommand.parseAsRoot(["run", "--metrics=\(text)"])
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(
                MonitorCommand.message(for: error)
                    == "The value '\(text)' is invalid for '--metrics <[host:]port>': \(reason)")
        }
    }

    @Test("the flag reaches the run command; with --once it is refused")
    func flag() throws {
        let run = try #require(
            try MonitorCommand.parseAsRoot(["run", "--metrics", "0.0.0.0:9464"]) as? MonitorCommand.Run)
        #expect(run.metrics == MetricsAddress(host: "0.0.0.0", port: 9464))
        let plain = try #require(try MonitorCommand.parseAsRoot(["run"]) as? MonitorCommand.Run)
        #expect(plain.metrics == nil)
        #expect(throws: (any Error).self) { try MonitorCommand.parseAsRoot(["run", "--once", "--metrics", "9464"]) }
        let help = MonitorCommand.Run.helpMessage(columns: 1000)
        #expect(
            help.contains(
                "--metrics [HOST:]PORT serves Prometheus metrics at http://HOST:PORT/metrics while it runs. A bare port "
                    + "or localhost listens on 127.0.0.1 only; to be reachable from other machines, name the address "
                    + "(0.0.0.0:9464 or [::]:9464 for every interface). Port 0 picks a free port; the address is "
                    + "printed on standard error. On the same address, /healthz answers 200 ok, or 503 naming each "
                    + "failing, held-back or stale feed, and /readyz 200 once every feed is scheduled."))
        #expect(
            help.contains(
                "--metrics <[host:]port> Serve Prometheus metrics at /metrics on this address (a bare port: "
                    + "127.0.0.1 only)."))
    }

    @Test("served on the wire as a service of a group: GET, HEAD, 404, 405; stopped with the group")
    func servedAndStopped() async throws {
        let export = MetricsExport()
        export.metrics.leasesHeld(3)
        let server = try await MetricsServer.bind(MetricsAddress(host: "127.0.0.1", port: 0), export: export)
        #expect(server.address.port > 0)
        #expect(server.address.url == "http://127.0.0.1:\(server.address.port)/metrics")
        let group = ServiceGroup(services: [server], logger: Logger(label: "test"))
        let transport = HTTPClientTransport(timeout: .seconds(600))
        let url = server.address.url
        let send = { (method: String, url: String) in
            try await transport.send(
                HTTPRequest(method: method, url: url, headers: [:], timeout: .seconds(600), maxBody: 1 << 20))
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let ok = try await send("GET", url)
            #expect(ok.status == 200)
            #expect(ok.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
            #expect(String(decoding: ok.body, as: UTF8.self) == leasesText(3))
            let missing = try await send("GET", url + "s")
            #expect(missing.status == 404)
            #expect(String(decoding: missing.body, as: UTF8.self) == "not found: the metrics are at /metrics\n")
            for method in ["POST", "PUT", "DELETE"] {
                let refused = try await send(method, url)
                #expect(refused.status == 405, "\(method)")
                #expect(refused.headers["Allow"] == "GET, HEAD")
            }
            let head = try await send("HEAD", url)
            #expect(head.status == 200)
            #expect(head.headers["Content-Length"] == "\(leasesText(3).utf8.count)")
            #expect(head.body.isEmpty)
            let postElsewhere = try await send("POST", url + "/x")
            #expect(postElsewhere.status == 404)

            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        // The group has stopped it: nothing listens any more.
        await #expect(throws: TransportError.self) { try await send("GET", url) }
        try await transport.shutdown()
    }

    @Test("0.0.0.0, written out, listens on every interface: 127.0.0.1 reaches it")
    func everyInterface() async throws {
        let export = MetricsExport()
        export.metrics.leasesHeld(1)
        let server = try await MetricsServer.bind(MetricsAddress(host: "0.0.0.0", port: 0), export: export)
        #expect(!server.address.isLoopback)
        #expect(server.address.url == "http://0.0.0.0:\(server.address.port)/metrics")
        let group = ServiceGroup(services: [server], logger: Logger(label: "test"))
        let transport = HTTPClientTransport(timeout: .seconds(600))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let response = try await transport.send(
                HTTPRequest(
                    url: "http://127.0.0.1:\(server.address.port)/metrics", headers: [:], timeout: .seconds(600),
                    maxBody: 1 << 20))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == leasesText(1))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        try await transport.shutdown()
    }

    @Test("an address that is not this machine's: a BindError saying so")
    func notThisMachine() async throws {
        // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
        do {
            _ = try await MetricsServer.bind(MetricsAddress(host: "192.0.2.1", port: 9464), export: MetricsExport())
            Issue.record("bound to 192.0.2.1")
        } catch {
            #expect("\(error)" == "cannot serve metrics on 192.0.2.1:9464: the address is not one of this machine's")
        }
    }

    @Test("a second server on the same port: a BindError saying the port is in use")
    func portInUse() async throws {
        let export = MetricsExport()
        let first = try await MetricsServer.bind(MetricsAddress(host: "127.0.0.1", port: 0), export: export)
        let port = first.address.port
        do {
            _ = try await MetricsServer.bind(MetricsAddress(host: "127.0.0.1", port: port), export: export)
            Issue.record("bound twice")
        } catch {
            #expect("\(error)" == "cannot serve metrics on 127.0.0.1:\(port): the port is already in use")
        }
        let group = ServiceGroup(services: [first], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    // MARK: - On the wire, byte for byte

    @Test("HEAD: the head GET would have, and no body (on /metrics and elsewhere)")
    func head() async throws {
        let (export, text) = exportHoldingLeases(3)
        try await withMetricsServer(export: export) { server in
            try await RawHTTPConnection.withConnection(port: server.address.port) { connection in
                try await connection.send(
                    "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\nHEAD /elsewhere HTTP/1.1\r\nHost: x\r\n\r\n")
                let head = try await connection.readResponse(bodyless: true)
                #expect(head.head == metricsHead(text))
                let missing = try await connection.readResponse(bodyless: true)
                #expect(missing.head == notFoundHead)
                // A GET's answer comes right after those two heads: no body came with them.
                let answer = try await get(&connection)
                #expect(answer.head == metricsHead(text))
                #expect(answer.body == text)
            }
        }
    }

    @Test("/readyz 503 until ready, then 200; /healthz 200 ok, then 503 with a line for each problem; HEAD, 405")
    func healthAndReadiness() async throws {
        let readiness = ServiceReadiness()
        let health = RunHealth()
        let plain = "Content-Type: text/plain; charset=utf-8"
        try await withMetricsServer(health: health, readiness: readiness) { server in
            try await RawHTTPConnection.withConnection(port: server.address.port) { connection in
                try await connection.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
                let starting = try await connection.readResponse()
                #expect(starting.head == "HTTP/1.1 503 Service Unavailable\r\n\(plain)\r\nContent-Length: 10")
                #expect(starting.body == "not ready\n")
                readiness.set(.ready)
                try await connection.send("GET /readyz?verbose HTTP/1.1\r\nHost: x\r\n\r\n")
                let ready = try await connection.readResponse()
                #expect(ready.head == "HTTP/1.1 200 OK\r\n\(plain)\r\nContent-Length: 6")
                #expect(ready.body == "ready\n")

                let feed = FeedConfig(
                    name: "rx", type: "github", options: FeedOptions())
                health.setFeeds([feed], interval: .seconds(600), now: Date())
                try await connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                let ok = try await connection.readResponse()
                #expect(ok.head == "HTTP/1.1 200 OK\r\n\(plain)\r\nContent-Length: 3")
                #expect(ok.body == "ok\n")

                var failed = PollReport(
                    feed: "rx", type: "github", status: .failed, error: "HTTP 500 from http://x/events",
                    started: Date(timeIntervalSince1970: 1_800_000_000))
                failed.failures = 2
                health.apply(.finished(failed), now: Date())
                let problem =
                    "rx: failing since 2027-01-15 08:00:00 UTC: HTTP 500 from http://x/events (2 failures in a row)\n"
                try await connection.send(
                    "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nHEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                let unhealthy = try await connection.readResponse()
                let unhealthyHead =
                    "HTTP/1.1 503 Service Unavailable\r\n\(plain)\r\nContent-Length: \(problem.utf8.count)"
                #expect(unhealthy.head == unhealthyHead)
                #expect(unhealthy.body == problem)
                let head = try await connection.readResponse(bodyless: true)
                #expect(head.head == unhealthyHead)

                try await connection.send("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
                let posted = try await connection.readResponse()
                #expect(
                    posted.head
                        == "HTTP/1.1 405 Method Not Allowed\r\n\(plain)\r\nAllow: GET, HEAD\r\nContent-Length: 41")
                #expect(posted.body == "method not allowed: GET or HEAD /healthz\n")
            }
        }
    }

    @Test("every metric has its # HELP text, before its # TYPE")
    func helpOnEveryMetric() throws {
        let export = MetricsExport()
        let metrics = export.metrics
        var report = PollReport(feed: "a", type: "github", status: .ok, items: 2, new: 1, started: Date())
        metrics.polled(report)
        report.status = .failed
        metrics.polled(report)
        let requests = metrics.requests(feed: "a")
        requests.answered(status: 200, bytes: 10)
        requests.failed()
        requests.notModified()
        let limit = try #require(RateLimit(headers: ["X-RateLimit-Remaining": "3"]))
        requests.rateLimit(limit, resource: "core", url: "http://x/")
        metrics.notificationsPending(notifier: "chat", count: 1)
        metrics.notificationFailed(notifier: "chat")
        metrics.notificationDropped(notifier: "chat")
        metrics.leasesHeld(1)
        metrics.configReloaded(successful: true, at: Date())
        let lines = String(decoding: export.text(), as: UTF8.self).split(separator: "\n").map(String.init)
        var typed: [String] = []
        for (index, line) in lines.enumerated() where line.hasPrefix("# TYPE ") {
            let name = String(line.split(separator: " ")[2])
            typed.append(name)
            let help = try #require(MonitorMetrics.help[name], "\(name) has no help text")
            #expect(index > 0 && lines[index - 1] == "# HELP \(name) \(help)")
        }
        #expect(Set(typed) == Set(MonitorMetrics.help.keys))
        #expect(typed.count == 15)
    }

    @Test("a request target in absolute form, as sent to a proxy, is served by its path")
    func absoluteForm() async throws {
        let (export, text) = exportHoldingLeases(1)
        try await withMetricsServer(export: export) { server in
            let port = server.address.port
            try await RawHTTPConnection.withConnection(port: port) { connection in
                try await connection.send(
                    "GET http://127.0.0.1:\(port)/metrics?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
                let answer = try await connection.readResponse()
                #expect(answer.head == metricsHead(text))
                #expect(answer.body == text)
                try await connection.send("GET HTTP://example.com/elsewhere HTTP/1.1\r\nHost: example.com\r\n\r\n")
                let missing = try await connection.readResponse()
                #expect(missing.head == notFoundHead)
                #expect(missing.body == "not found: the metrics are at /metrics\n")
            }
        }
    }

    @Test("a client that shuts its side after its request still gets the answer, then the end")
    func halfClose() async throws {
        let (export, text) = exportHoldingLeases(2)
        try await withMetricsServer(export: export) { server in
            try await RawHTTPConnection.withConnection(port: server.address.port) { connection in
                try await connection.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                connection.finishSending()
                let answer = try await connection.readToEnd()
                #expect(answer == metricsHead(text) + "\r\n\r\n" + text)
            }
        }
    }

    @Test(
        "the path of a request target",
        arguments: [
            ("/metrics", "/metrics"), ("/metrics?a=b", "/metrics"), ("http://h:9464/metrics", "/metrics"),
            ("HTTPS://h/metrics?x", "/metrics"), ("http://h", ""), ("http://h?x", ""), ("http://h/", "/"),
            ("ftp://h/metrics", "ftp://h/metrics"), ("/x/http://h/metrics", "/x/http://h/metrics"), ("*", "*"),
        ])
    func path(_ target: String, path: String) {
        #expect(MetricsServer.path(of: target) == path)
    }

    @Test(
        "a request that is not HTTP/1.x: one 400, then the connection is closed",
        arguments: [
            // No version: read as HTTP/0.9, which NIO's error handling answered twice.
            "GET /metrics\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nBad Header\r\n\r\n",
            // A head that is fine, then a chunk size that is not a number.
            "POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n",
        ])
    func malformed(_ request: String) async throws {
        try await withMetricsServer { server in
            try await RawHTTPConnection.withConnection(port: server.address.port) { connection in
                try await connection.send(request)
                let answer = try await connection.readToEnd()
                #expect(
                    answer
                        == "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
                        + "Content-Length: 45\r\nConnection: close\r\n\r\nbad request: this is not an HTTP/1.1 request\n"
                )
            }
        }
    }

    @Test(
        "a method the HTTP parser does not know (any first word but a method): one 405 with Allow, then closed",
        arguments: ["BREW /metrics HTTP/1.1\r\nHost: x\r\n\r\n", "GARBAGE\r\n\r\n"])
    func unknownMethod(_ request: String) async throws {
        try await withMetricsServer { server in
            try await RawHTTPConnection.withConnection(port: server.address.port) { connection in
                try await connection.send(request)
                let answer = try await connection.readToEnd()
                #expect(
                    answer
                        == "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; charset=utf-8\r\n"
                        + "Content-Length: 32\r\nConnection: close\r\nAllow: GET, HEAD\r\n\r\n"
                        + "method not allowed: GET or HEAD\n")
            }
        }
    }

    // MARK: - Slow, idle and too many clients
    // On the wire, each outcome that no delay can change; the deadlines to the millisecond are MetricsDeadlinesTests'.

    @Test("a request head that never completes is closed after the head timeout, unanswered")
    func halfAHead() async throws {
        let limits = MetricsServer.Limits(headTimeout: .seconds(1), idleTimeout: .minutes(10))
        try await withMetricsServer(limits) { server in
            try await RawHTTPConnection.withConnection(port: server.address.port) { connection in
                // On a busy machine the head timeout can pass before these bytes go out: the close is the outcome
                // either way.
                _ = try await connection.sendUnlessClosed("GET /metrics HTTP/1.1\r\nHost: x\r\nUser-Agent: slow")
                #expect(try await connection.readUntilClosed() == "")
            }
        }
    }

    @Test("a kept-alive connection idle past the idle timeout is closed")
    func idleKeepAlive() async throws {
        let limits = MetricsServer.Limits(headTimeout: .minutes(10), idleTimeout: .milliseconds(200))
        try await withMetricsServer(limits) { server in
            try await RawHTTPConnection.withConnection(port: server.address.port) { connection in
                let answer = try await get(&connection)
                #expect(answer.head == metricsHead(""))
                #expect(try await connection.readUntilClosed() == "")
            }
        }
    }

    @Test(
        "one connection beyond the cap closes the one quiet the longest; the others are still served")
    func connectionCap() async throws {
        let limits = MetricsServer.Limits(headTimeout: .minutes(10), idleTimeout: .minutes(10), connections: 2)
        try await withMetricsServer(limits) { server in
            let port = server.address.port
            try await RawHTTPConnection.withConnection(port: port) { first in
                try await RawHTTPConnection.withConnection(port: port) { second in
                    // The second connection is answered, then the first: the second is now the quieter one.
                    #expect(try await get(&second).head == metricsHead(""))
                    #expect(try await get(&first).head == metricsHead(""))
                    try await RawHTTPConnection.withConnection(port: port) { third in
                        let closed = try await second.readToEnd()
                        #expect(closed == "")
                        let (thirdAnswer, firstAnswer) = (try await get(&third), try await get(&first))
                        #expect(thirdAnswer.head == metricsHead(""))
                        #expect(firstAnswer.head == metricsHead(""))
                    }
                }
            }
        }
    }
}
