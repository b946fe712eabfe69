import Foundation
import LoopbackHTTP
import MonitorConcurrency
import MonitorItems
import MonitorOptions
import Samples
import TestSupport
import Testing

@testable import MonitorApp
@testable import MonitorCore
@testable import MonitorJSON
@testable import WebhookNotifier

/// A webhook notifier POSTing to `url` through the app's real HTTP client (redirects not followed).
private func webhook(
    _ url: String, format: String = "json", secret: String? = nil, headers: [String: String]? = nil,
    transport: HTTPClientTransport
) -> WebhookNotifier {
    var values: [String: OptionValue] = ["url": .string(url), "format": .string(format)]
    if let secret { values["secret"] = .string(secret) }
    if let headers { values["headers"] = .mapping(headers) }
    return WebhookNotifier(name: "chat", options: Fixtures.options(values), context: Fixtures.context(transport))
}

/// Runs `body` with a notifier transport, always shut down.
private func withTransport<T: Sendable>(_ body: (HTTPClientTransport) async throws -> T) async throws -> T {
    let transport = HTTPClientTransport(timeout: .seconds(30), followRedirects: false)
    do {
        let result = try await body(transport)
        try await transport.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        throw error
    }
}

@Suite("The webhook notifier against a real HTTP receiver on 127.0.0.1", .timeLimit(.minutes(5)))
struct WebhookWireTests {
    @Test("one POST with the schema-1 body, its id as Idempotency-Key, a valid signature and the user's headers")
    func request() async throws {
        let notification = Fixtures.notification()
        try await withTestHTTPServer({ _ in .text("ok") }) { server in
            try await withTransport { transport in
                let notifier = webhook(
                    server.baseURL + "/hooks/T1/s3cr3t-path", secret: "k3y", headers: ["X-Team": "infra"],
                    transport: transport)
                let receipt = try await notifier.deliver(notification)
                #expect(receipt == DeliveryReceipt("HTTP 200"))
                #expect(notifier.target == "http://127.0.0.1:\(server.port)/…")
            }
            let requests = server.requests
            #expect(requests.count == 1)
            let request = try #require(requests.first)
            #expect(request.method == "POST")
            #expect(request.uri == "/hooks/T1/s3cr3t-path")
            let body = notification.jsonBody()
            #expect(request.body == body)
            #expect(
                String(decoding: request.body, as: UTF8.self)
                    == #"{"schema":1,"id":"3f1c2a9e-0000-4000-8000-000000000001","notifier":"chat","feed":"rx","#
                    + #""type":"github","event":"new","at":"2027-01-15T08:00:00Z","total":3,"items":["#
                    + #"{"id":"e1","title":"Event 1","date":"2027-01-15T07:59:00Z","url":"https://github.com/x/1","#
                    + #""groups":["PushEvent"],"details":{}},"#
                    + #"{"id":"e2","title":"Event 2","date":"2027-01-15T07:58:00Z","url":"https://github.com/x/2","#
                    + #""groups":["PushEvent"],"details":{}},"#
                    + #"{"id":"e3","title":"Event 3","date":"2027-01-15T07:57:00Z","url":"https://github.com/x/3","#
                    + #""groups":["PushEvent"],"details":{}}],"error":null}"#)
            let signature = try await Fixtures.pythonHMAC(key: "k3y", body: body)
            #expect(signature.count == 64)
            #expect(
                request.headers.map { "\($0.name): \($0.value)" } == [
                    "Content-Type: application/json", "User-Agent: monitor/\(MonitorVersion.current)",
                    "Idempotency-Key: 3f1c2a9e-0000-4000-8000-000000000001",
                    "X-Monitor-Signature-256: sha256=\(signature)", "X-Team: infra",
                    "host: 127.0.0.1:\(server.port)", "Content-Length: \(body.count)",
                ])
        }
    }

    @Test("an EONET item's body carries lat, lon and magnitude_value as JSON numbers and magnitude_unit as a text")
    func eonetNumbers() async throws {
        let storm = Item(
            id: "EONET_9001", title: "Tropical Storm Alpha", date: ISO8601.date("2025-09-22T00:00:00Z")!,
            groups: ["severeStorms"],
            details: [
                Detail("status", "open"), Detail("magnitude", "45.5 kts"), Detail("position", "lat 15.2, lon -101"),
            ],
            location: Item.Position(latitude: 15.2, longitude: -101),
            magnitude: Item.Magnitude(value: 45.5, unit: "kts"))
        let notification = FeedNotification(
            id: "n-1", notifier: "chat", feed: "planet", type: "eonet", event: .new,
            at: ISO8601.date("2025-09-22T01:00:00Z")!, total: 1, items: [storm])
        try await withTestHTTPServer({ _ in .text("ok") }) { server in
            try await withTransport { transport in
                let receipt = try await webhook(server.baseURL + "/hook", transport: transport).deliver(notification)
                #expect(receipt == DeliveryReceipt("HTTP 200"))
            }
            let body = try #require(server.requests.first).body
            #expect(
                String(decoding: body, as: UTF8.self)
                    == #"{"schema":1,"id":"n-1","notifier":"chat","feed":"planet","type":"eonet","event":"new","#
                    + #""at":"2025-09-22T01:00:00Z","total":1,"items":[{"id":"EONET_9001","title":"Tropical Storm Alpha","#
                    + #""date":"2025-09-22T00:00:00Z","url":null,"groups":["severeStorms"],"details":{"status":"open","#
                    + #""magnitude":"45.5 kts","position":"lat 15.2, lon -101"},"lat":15.2,"lon":-101,"#
                    + #""magnitude_value":45.5,"magnitude_unit":"kts"}],"error":null}"#)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            let item = try #require((object["items"] as? [[String: Any]])?.first)
            #expect(item["lat"] as? Double == 15.2 && !(item["lat"] is String))
            #expect(item["lon"] as? Double == -101)
            #expect(item["magnitude_value"] as? Double == 45.5)
            #expect(item["magnitude_unit"] as? String == "kts")
        }
    }

    @Test("a receiver answering 503 twice then 200 gets three requests carrying one id, and the outbox empties")
    func sameIDOnEveryRetry() async throws {
        let answers = Watched(0)
        try await withTestHTTPServer({ _ in
            let count = answers.update {
                $0 += 1; return $0
            }
            return count <= 2 ? .text("busy", status: 503) : .text("ok")
        }) { server in
            try await withTransport { transport in
                let notification = Fixtures.notification()
                let store = try await Fixtures.store(holding: [notification])
                let (attempts, heard) = AsyncStream<NotificationDelivery.Attempt>.makeStream()
                let delivery = NotificationDelivery(
                    store: store, notifiers: ["chat": webhook(server.baseURL + "/hook", transport: transport)],
                    backoff: .init(base: .zero, maximum: .zero), logger: Fixtures.logger,
                    observer: { heard.yield($0) })
                let wakeup = Wakeup()
                var results: [NotificationDelivery.Attempt.Result] = []
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await delivery.run(wakeup: wakeup) }
                    for await attempt in attempts {
                        results.append(attempt.result)
                        if case .delivered = attempt.result { break }
                    }
                    group.cancelAll()
                }
                let shown = "POST http://127.0.0.1:\(server.port)/…"
                #expect(results.count == 3)
                #expect(
                    results.dropLast().map { if case .willRetry(let message, _) = $0 { message } else { "" } } == [
                        "\(shown) answered HTTP 503: busy", "\(shown) answered HTTP 503: busy",
                    ])
                #expect(results.last == .delivered("HTTP 200"))
                #expect(try await store.outbox(refused: true).isEmpty)
                let statuses = try await store.notifierStatuses()
                #expect(statuses.map(\.name) == ["chat"])
                #expect(statuses.first?.lastError == "\(shown) answered HTTP 503: busy")
                #expect(statuses.first?.lastDelivered != nil)
            }
            let requests = server.requests
            #expect(requests.count == 3)
            #expect(Set(requests.map { $0.header("Idempotency-Key") }) == ["3f1c2a9e-0000-4000-8000-000000000001"])
            #expect(Set(requests.map(\.body)).count == 1)
        }
    }

    @Test("a 429's Retry-After sets the next attempt, capped at an hour like the feeds'")
    func retryAfter() async throws {
        try await withTestHTTPServer({ request in
            .text("slow down", status: 429, headers: [("Retry-After", request.path == "/long" ? "99999" : "120")])
        }) { server in
            try await withTransport { transport in
                let store = try await Fixtures.store(
                    holding: [
                        Fixtures.notification("a", notifier: "short"), Fixtures.notification("b", notifier: "long"),
                    ])
                let now = Fixtures.at
                let delivery = NotificationDelivery(
                    store: store,
                    notifiers: [
                        "short": webhook(server.baseURL + "/short", transport: transport),
                        "long": webhook(server.baseURL + "/long", transport: transport),
                    ], clock: FrozenClock(at: now), logger: Fixtures.logger)
                let attempts = await delivery.deliverDue()
                #expect(attempts.map(\.notification.id) == ["a", "b"])
                let outbox = try await store.outbox()
                #expect(outbox.map(\.nextAttempt) == [now.addingTimeInterval(120), now.addingTimeInterval(3600)])
                #expect(outbox.map(\.attempts) == [1, 1])
                // Not due yet: nothing is sent again.
                #expect(await delivery.deliverDue().isEmpty)
                #expect(server.requests.count == 2)
            }
        }
    }

    @Test("a Retry-After of 0 or in the past waits the backoff (at least its base): nothing is sent again at once")
    func retryAfterZero() async throws {
        try await withTestHTTPServer({ request in
            .text(
                "slow down", status: request.path == "/zero" ? 429 : 503,
                headers: [("Retry-After", request.path == "/zero" ? "0" : "Wed, 21 Oct 2015 07:28:00 GMT")])
        }) { server in
            try await withTransport { transport in
                let store = try await Fixtures.store(
                    holding: [
                        Fixtures.notification("a", notifier: "zero"), Fixtures.notification("b", notifier: "past"),
                    ])
                let now = Fixtures.at
                let delivery = NotificationDelivery(
                    store: store,
                    notifiers: [
                        "zero": webhook(server.baseURL + "/zero", transport: transport),
                        "past": webhook(server.baseURL + "/past", transport: transport),
                    ], clock: FrozenClock(at: now),
                    backoff: .init(base: .seconds(5), maximum: .seconds(900)), logger: Fixtures.logger)
                let attempts = await delivery.deliverDue()
                #expect(attempts.map(\.notification.id) == ["a", "b"])
                let outbox = try await store.outbox()
                #expect(outbox.map(\.nextAttempt) == [now.addingTimeInterval(5), now.addingTimeInterval(5)])
                // Not due yet: nothing is sent again, however often the loop asks.
                #expect(await delivery.deliverDue().isEmpty)
                #expect(await delivery.deliverDue().isEmpty)
                #expect(server.requests.map(\.path).sorted() == ["/past", "/zero"])
            }
        }
    }

    @Test("after one not delivered, a notifier's later notifications wait; once it is up they go in order")
    func inOrder() async throws {
        let down = Watched(true)
        try await withTestHTTPServer({ _ in down.value ? .text("busy", status: 503) : .text("ok") }) { server in
            try await withTransport { transport in
                let store = try await Fixtures.store(
                    holding: ["a", "b", "c"].map { Fixtures.notification($0) })
                let now = Fixtures.at
                let delivery = NotificationDelivery(
                    store: store, notifiers: ["chat": webhook(server.baseURL + "/hook", transport: transport)],
                    clock: FrozenClock(at: now, random: 0), logger: Fixtures.logger)
                let first = await delivery.deliverDue(all: true)
                // The first backoff: half the 5 s base with no jitter. The two behind it are not attempted.
                let next = now.addingTimeInterval(2.5)
                #expect(try await store.outbox().first?.nextAttempt == next)
                #expect(
                    first.map(\.result) == [
                        .willRetry("POST http://127.0.0.1:\(server.port)/… answered HTTP 503: busy", next: next)
                    ])
                #expect(try await store.outbox().map(\.attempts) == [1, 0, 0])
                // Not due yet (the first waits its backoff): nothing is sent.
                let early = await delivery.deliverDue()
                #expect(early.isEmpty)
                down.update { $0 = false }
                let second = await delivery.deliverDue(all: true)
                #expect(
                    second.map(\.result) == [.delivered("HTTP 200"), .delivered("HTTP 200"), .delivered("HTTP 200")])
                #expect(try await store.outbox().isEmpty)
            }
            #expect(server.requests.map { $0.header("Idempotency-Key") } == ["a", "a", "b", "c"])
        }
    }

    @Test("a 404 is permanent: refused, kept, never sent again; another notifier still delivers")
    func permanent() async throws {
        try await withTestHTTPServer({ request in
            request.path == "/gone" ? .text("no such hook", status: 404) : .text("ok")
        }) { server in
            try await withTransport { transport in
                let store = try await Fixtures.store(
                    holding: [
                        Fixtures.notification("a", notifier: "gone"), Fixtures.notification("b", notifier: "fine"),
                    ])
                let delivery = NotificationDelivery(
                    store: store,
                    notifiers: [
                        "gone": webhook(server.baseURL + "/gone", transport: transport),
                        "fine": webhook(server.baseURL + "/fine", transport: transport),
                    ], logger: Fixtures.logger)
                let attempts = await delivery.deliverDue(all: true)
                #expect(
                    attempts.map(\.result) == [
                        .refused("POST http://127.0.0.1:\(server.port)/… answered HTTP 404: no such hook"),
                        .delivered("HTTP 200"),
                    ])
                #expect(await delivery.deliverDue(all: true).isEmpty)
                #expect(server.requests.map(\.path).sorted() == ["/fine", "/gone"])
                let kept = try await store.outbox(refused: true)
                #expect(kept.map(\.notification.id) == ["a"])
                #expect(kept.first?.refusedAt != nil)
                #expect(try await store.outbox().isEmpty)
            }
        }
    }

    @Test("a receiver's answer that echoes the URL, the secret or a header value shows none of them, nor controls")
    func echoedSecretsHidden() async throws {
        try await withTestHTTPServer({ request in
            .text(
                "bad hook http://127.0.0.1\(request.header("Host").map { ":" + ($0.split(separator: ":").last ?? "") } ?? "")"
                    + "\(request.uri) \(request.uri) k3y-s3cr3t Bearer t0k3n-value \u{1B}[2J",
                status: 400)
        }) { server in
            try await withTransport { transport in
                let notifier = webhook(
                    server.baseURL + "/hooks/T1/s3cr3t-path", secret: "k3y-s3cr3t",
                    headers: ["Authorization": "Bearer t0k3n-value"], transport: transport)
                await #expect(
                    throws: DeliveryError.permanent(
                        "POST http://127.0.0.1:\(server.port)/… answered HTTP 400: bad hook … … … …")
                ) {
                    try await notifier.deliver(Fixtures.notification())
                }
            }
        }
    }

    @Test(
        "an answer echoing the path without its query, a query value, the decoded path shows none; the host still shows"
    )
    func echoedPathHidden() async throws {
        try await withTestHTTPServer({ request in
            .json(
                #"{"status":404,"error":"Not Found","path":"\#(request.path)","sig":"\#(request.query["sig"] ?? "")","#
                    + #""decoded":"\#(request.path.removingPercentEncoding ?? "")"}"#, status: 404)
        }) { server in
            try await withTransport { transport in
                // A segment is the host: the URL shown still names it.
                let notifier = webhook(
                    server.baseURL + "/127.0.0.1/T0AAAA/XyZ%2Bs3cr3t?v=1&sig=q5ecr3tQ", transport: transport)
                #expect(notifier.target == "http://127.0.0.1:\(server.port)/…")
                await #expect(
                    throws: DeliveryError.permanent(
                        "POST http://127.0.0.1:\(server.port)/… answered HTTP 404: "
                            + #"{"status":404,"error":"Not Found","path":"…","sig":"…","decoded":"…"}"#)
                ) {
                    try await notifier.deliver(Fixtures.notification())
                }
            }
            #expect(server.requests.map(\.uri) == ["/127.0.0.1/T0AAAA/XyZ%2Bs3cr3t?v=1&sig=q5ecr3tQ"])
        }
    }

    @Test(
        "a secret echoed across the 200th byte of an answer shows not one 4-character piece, in the error or the state",
        arguments: ["path", "secret", "header"])
    func straddlingSecretHidden(which: String) async throws {
        // No runs of digits or hex letters in them: the port shown could contain "5678".
        let path = "/hooks/T1/s3cr3t-path-qwrtzuiopx"
        let secrets = ["path": path, "secret": "k3y-s3cr3t-mnjhgkrtvw", "header": "Bearer t0k3n-value-QWRTZUIOPX"]
        let echoed = try #require(secrets[which])
        // The secret starts 8 bytes before the 200th: a cut at 200 would keep its first 8 bytes.
        let answer = String(repeating: "=", count: 192) + echoed + " tail"
        try await withTestHTTPServer({ _ in .text(answer, status: 500) }) { server in
            try await withTransport { transport in
                let store = try await Fixtures.store(holding: [Fixtures.notification()])
                let notifier = webhook(
                    server.baseURL + path, secret: secrets["secret"], headers: ["Authorization": secrets["header"]!],
                    transport: transport)
                let delivery = NotificationDelivery(
                    store: store, notifiers: ["chat": notifier], logger: Fixtures.logger)
                let attempts = await delivery.deliverDue()
                let shown =
                    "POST http://127.0.0.1:\(server.port)/… answered HTTP 500: "
                    + String(repeating: "=", count: 192) + "… tail"
                #expect(attempts.count == 1)
                guard case .willRetry(let message, _) = attempts.first?.result else {
                    Issue.record("not retried: \(attempts)")
                    return
                }
                #expect(message == shown)
                let lastError = try #require(try await store.notifierStatuses().first?.lastError)
                #expect(lastError == shown)
                for text in [message, lastError] {
                    for start in 0...(echoed.count - 4) {
                        let piece = String(echoed.dropFirst(start).prefix(4))
                        #expect(!text.contains(piece), "\(piece) shown in \(text)")
                    }
                }
            }
        }
    }

    @Test("a secret or a header value shorter than 4 characters echoed in an answer is hidden too")
    func shortSecretsHidden() async throws {
        try await withTestHTTPServer({ _ in .text("bad signature with key k3, header 7x", status: 401) }) { server in
            try await withTransport { transport in
                let notifier = webhook(
                    server.baseURL + "/h", secret: "k3", headers: ["X-Key": "7x"], transport: transport)
                await #expect(
                    throws: DeliveryError.permanent(
                        "POST http://127.0.0.1:\(server.port)/… answered HTTP 401: bad signature with key …, header …")
                ) {
                    try await notifier.deliver(Fixtures.notification())
                }
            }
        }
    }

    @Test(
        "an answer larger than the feeds' body cap (2 MiB): a 2xx is delivered, a 500 retried showing its start",
        arguments: [false, true])
    func oversizedAnswer(chunked: Bool) async throws {
        let huge = [UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20)
        try await withTestHTTPServer({ request in
            TestResponse(
                status: request.path == "/ok" ? 200 : 500,
                headers: chunked ? [("Transfer-Encoding", "chunked")] : [], body: huge)
        }) { server in
            try await withTransport { transport in
                let store = try await Fixtures.store(holding: [Fixtures.notification()])
                let delivery = NotificationDelivery(
                    store: store, notifiers: ["chat": webhook(server.baseURL + "/ok", transport: transport)],
                    logger: Fixtures.logger)
                #expect(await delivery.deliverDue().map(\.result) == [.delivered("HTTP 200")])
                #expect(try await store.outbox(refused: true).isEmpty)
                let failing = webhook(server.baseURL + "/down", transport: transport)
                await #expect(
                    throws: DeliveryError.retry(
                        "POST http://127.0.0.1:\(server.port)/… answered HTTP 500: "
                            + String(repeating: "a", count: 200))
                ) {
                    try await failing.deliver(Fixtures.notification())
                }
            }
        }
    }

    @Test("a redirect is not followed: the notification is refused, nothing goes to the other URL")
    func redirect() async throws {
        try await withTestHTTPServer({ request in
            request.path == "/hook"
                ? TestResponse(status: 302, headers: [("Location", "/elsewhere")]) : .text("ok")
        }) { server in
            try await withTransport { transport in
                let notifier = webhook(server.baseURL + "/hook", secret: "k3y", transport: transport)
                await #expect(
                    throws: DeliveryError.permanent(
                        "POST http://127.0.0.1:\(server.port)/… answered HTTP 302, a redirect, which is not followed "
                            + "(give the final URL)")
                ) {
                    try await notifier.deliver(Fixtures.notification())
                }
            }
            #expect(server.requests.map(\.path) == ["/hook"])
        }
    }

    @Test("a receiver that is down: a retryable error showing the URL masked, never its path")
    func down() async throws {
        // Held for the test: a port that was freed could be taken by another test's server meanwhile.
        let refusing = try #require(RefusingPort())
        defer { refusing.close() }
        let port = refusing.number
        try await withTransport { transport in
            let notifier = webhook("http://127.0.0.1:\(port)/hooks/T1/s3cr3t", transport: transport)
            await #expect(throws: DeliveryError.retry("POST http://127.0.0.1:\(port)/… failed: connection refused")) {
                try await notifier.deliver(Fixtures.notification())
            }
        }
    }

    @Test(
        "a hostile title reaches no chat as a mention or a forged link, and no format as a control character",
        arguments: ["slack", "discord", "ntfy", "text"])
    func mentionsNeutralised(format: String) async throws {
        var notification = Fixtures.notification()
        notification.items[0].title = "<!channel> @everyone <https://evil.example|click> @here \u{1B}[31mred"
        try await withTestHTTPServer({ _ in .text("ok") }) { server in
            try await withTransport { transport in
                let notifier = webhook(server.baseURL + "/hook", format: format, transport: transport)
                let receipt = try await notifier.deliver(notification)
                #expect(receipt == DeliveryReceipt("HTTP 200"))
            }
            let request = try #require(server.requests.first)
            let body = String(decoding: request.body, as: UTF8.self)
            #expect(request.body == NotificationFormat(rawValue: format)?.render(notification).body)
            #expect(body.contains("red"))
            // Mentions mean something to the chats; ntfy and plain text have none, but no format has a control
            // character.
            let chat = format == "slack" || format == "discord"
            let hostiles = chat ? ["<!channel>", "@everyone", "@here", "<https://evil.example|", "\u{1B}"] : ["\u{1B}"]
            for hostile in hostiles {
                #expect(!body.contains(hostile), "\(format): \(hostile) in \(body)")
            }
            #expect(request.header("Idempotency-Key") == notification.id)
        }
    }
}
