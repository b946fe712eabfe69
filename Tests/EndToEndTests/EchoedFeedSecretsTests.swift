import Foundation
import LoopbackHTTP
import TestSupport
import Testing

/// The feed's token, and what no output may hold of it: the token, its start and its middle.
private let token = "ghp_echoedFeedToken0123456789"
private let pieces = [token, "ghp_echoe", "echoedFeedToken"]

/// A GitHub Enterprise failing with a 500 whose message echoes the request's `Authorization` and the token's first
/// 12 characters.
private let enterprise: @Sendable (RecordedRequest) -> TestResponse = { request in
    let authorization = request.header("Authorization") ?? ""
    let start = authorization.dropFirst("Bearer ".count).prefix(12)
    return .json(#"{"message":"boom \#(authorization); start \#(start) (cut)"}"#, status: 500)
}

@Suite(
    "A feed's token echoed by its server: the real binary shows, stores and sends none of it", .timeLimit(.minutes(5)))
struct EchoedFeedSecretsTests {
    @Test("validate --online, run, /healthz, the failed notification, run --once, status and the state show it as …")
    func echoedToken() async throws {
        let directory = try TemporaryDirectory()
        let environment = ["GHE_TOKEN": token]
        try await withTestHTTPServer(enterprise) { server in
            try await withTestHTTPServer({ _ in .text("ok") }) { receiver in
                try directory.write(
                    "feeds.yaml",
                    """
                    settings:
                      retries: 0
                    feeds:
                      - {name: ghe, type: github, repo: o/r, token: "${GHE_TOKEN}", api: "\(server.baseURL)"}
                    notify:
                      - {name: hook, type: webhook, url: "\(receiver.baseURL)/hook"}
                    """)
                let shown = "HTTP 500 Internal Server Error: boom Bearer …; start … (cut)"
                var outputs: [(String, String)] = []

                let validate = try await MonitorProcess.run(
                    ["validate", "--online"], in: directory.url, environment: environment)
                // The server got the token: what it echoes is what the outputs hide.
                #expect(server.requests.first?.header("Authorization") == "Bearer \(token)")
                #expect(server.requests.map(\.uri) == ["/repos/o/r"])
                #expect(validate.stdout.contains("GET \(server.baseURL)/repos/o/r: \(shown)"), "\(validate.stdout)")
                let url = "\(server.baseURL)/repos/o/r/events?per_page=50"
                outputs.append(("validate --online", validate.stdout + validate.stderr))

                let monitor = try await RunningMonitor(
                    ["run", "--format", "json", "--state", "state", "--metrics", "127.0.0.1:0"], in: directory.url,
                    environment: environment)
                let errors = try await monitor.waitForErrors { $0.contains("/metrics\n") }
                let base = String(
                    try #require(
                        errors.firstMatch(of: /metrics on (http:\/\/127\.0\.0\.1:[0-9]+)\/metrics\n/)?.output.1))
                try await monitor.waitForOutput { $0.contains(#""feed":"ghe""#) }
                try await receiver.waitForRequests(1)
                let (status, _, health) = try await fetch(base + "/healthz")
                #expect(status == 503)
                #expect(
                    health.replacing(/([0-9]{4}-[0-9]{2}-[0-9]{2} )?[0-9]{2}:[0-9]{2}:[0-9]{2} UTC/, with: "TIME")
                        == "ghe: failing since TIME: GET \(url): \(shown)\n")
                monitor.send(SIGTERM)
                #expect(try await monitor.waitForExit() == 0)
                #expect(monitor.stdout.contains(#""error":"GET \#(url): \#(shown)""#), "\(monitor.stdout)")
                outputs += [("run", monitor.stdout + monitor.stderr), ("/healthz", health)]
                let notification = String(decoding: try #require(receiver.requests.first?.body), as: UTF8.self)
                #expect(notification.contains("GET \(url): \(shown)"), "\(notification)")
                outputs.append(("the failed notification", notification))

                let once = try await MonitorProcess.run(
                    ["run", "--once", "--state", "once"], in: directory.url, environment: environment)
                #expect(once.stdout.contains("GET \(url): \(shown)"), "\(once.stdout)")
                outputs.append(("run --once", once.stdout + once.stderr))
                let listed = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
                #expect(listed.stdout.contains("GET \(url): \(shown)"), "\(listed.stdout)")
                outputs.append(("status", listed.stdout + listed.stderr))
                let state = try stateBytes(directory)
                #expect(state.contains("GET \(url): \(shown)"))
                outputs.append(("the state", state))
                for (name, output) in outputs {
                    #expect(pieces.filter { output.contains($0) } == [], "in \(name)")
                }
            }
        }
    }
}
