import Foundation
import Testing

@testable import MonitorApp
@testable import MonitorCore
@testable import MonitorText

/// The diagnostics of `text` as `LINE:COL: MESSAGE` strings, in order.
private func problems(_ text: String, environment: [String: String] = [:]) -> [String] {
    let loaded = ConfigLoader(environment: environment).load(text: text, path: "feeds.yaml")
    return DiagnosticRenderer(path: "", source: "").sorted(loaded.diagnostics).map { diagnostic in
        "\(diagnostic.location.map { "\($0)" } ?? "-"): \(diagnostic.message)"
    }
}

private let feeds = """
    feeds:
      - name: rxswift
        type: exec
        command: [sh]
      - name: planet
        type: exec
        command: [sh]

    """

@Suite("feeds.yaml's `notify:` list")
struct NotifyConfigTests {
    @Test("a webhook and a command notifier with their options and defaults, ${VAR} in secrets")
    func valid() throws {
        let loaded = ConfigLoader(environment: ["CHAT_WEBHOOK_URL": "https://hooks.example/T1/B2/s3cr3t"]).load(
            text: feeds + """
                notify:
                  - name: chat
                    type: webhook
                    url: ${CHAT_WEBHOOK_URL}
                    format: slack
                    secret: ${HOOK_SECRET:-}
                    headers: {X-Team: infra}
                    feeds: [rxswift, planet]
                    on: [new, failed, recovered, stale]
                  - name: script
                    type: command
                    command: [./bin/on-new-items, --verbose]
                    timeout: 10s
                """, path: "feeds.yaml")
        #expect(loaded.diagnostics.isEmpty)
        let notifiers = try #require(loaded.config?.notifiers)
        #expect(notifiers.map(\.name) == ["chat", "script"])
        #expect(notifiers.map(\.type) == ["webhook", "command"])
        #expect(
            notifiers.map(\.options.location) == [
                SourceLocation(line: 9, column: 5), SourceLocation(line: 17, column: 5),
            ])
        let chat = notifiers[0]
        #expect(chat.options.string("url") == "https://hooks.example/T1/B2/s3cr3t")
        #expect(chat.options.string("format") == "slack")
        #expect(chat.options.string("secret") == nil)
        #expect(chat.options.mapping("headers") == ["X-Team": "infra"])
        #expect(chat.feeds == ["rxswift", "planet"])
        #expect(chat.events == [.new, .failed, .recovered, .stale])
        let script = notifiers[1]
        #expect(script.options.list("command") == ["./bin/on-new-items", "--verbose"])
        #expect(script.options.duration("timeout") == .seconds(10))
        #expect(script.feeds == nil)
        #expect(script.events == [.new, .failed, .recovered])
        // The outbox bounds' defaults.
        #expect(
            notifiers.map(\.bounds) == Array(repeating: OutboxBounds(count: 1000, age: .seconds(7 * 86_400)), count: 2))
    }

    @Test(
        "max_pending and max_age bound a notifier's outbox; a value out of range is an error with its line and column")
    func bounds() throws {
        let loaded = ConfigLoader().load(
            text: feeds + """
                notify:
                  - name: chat
                    type: command
                    command: [./notify.sh]
                    max_pending: 50
                    max_age: 2h
                """, path: "feeds.yaml")
        #expect(loaded.diagnostics.isEmpty)
        #expect(loaded.config?.notifiers.map(\.bounds) == [OutboxBounds(count: 50, age: .seconds(7200))])
        #expect(
            problems(
                feeds + """
                    notify:
                      - name: chat
                        type: command
                        command: [./notify.sh]
                        max_pending: 0
                        max_age: 30s
                      - name: team
                        type: command
                        command: [./notify.sh]
                        max_pending: many
                        max_aeg: 1d
                    """) == [
                    "12:18: 'max_pending' must be a whole number from 1 to 1000000, not 0",
                    "13:14: 'max_age' must be at least 1m, not '30s'",
                    "17:18: 'max_pending' must be a whole number from 1 to 1000000, not 'many'",
                    "18:5: unknown key 'max_aeg' in notifier 'team' (did you mean 'max_age'?)",
                ])
    }

    @Test("every problem of the notify list is an error with its line and column")
    func invalid() {
        let text =
            feeds + """
                notify:
                  - name: chat
                    type: webhook
                    url: ftp://hooks.example/x
                    fromat: slack
                    feeds: [rxswift, plannet]
                    on: [new, faild]
                  - name: chat
                    type: command
                    command: ./notify.sh
                  - name: empty
                    type: command
                    command: []
                  - name: mail
                    type: email
                  - name: hook
                    type: webhook
                    url: https://user:pw@hooks.example/x
                  - name: nourl
                    type: webhook
                  - name: badheader
                    type: webhook
                    url: https://hooks.example/x
                    headers: {Authorization: "Bearer t0k3n\\n"}
                """
        #expect(
            problems(text) == [
                "11:10: 'url' must be an http:// or https:// URL (its value is not shown)",
                "12:5: unknown key 'fromat' in notifier 'chat' (did you mean 'format'?)",
                "13:22: unknown feed 'plannet' in 'feeds' (did you mean 'planet'? known feeds: rxswift, planet)",
                "14:15: unknown event 'faild' in 'on' (did you mean 'failed'? known events: new, failed, recovered, stale, gap)",
                "15:11: duplicate notifier name 'chat' (first used on line 9)",
                "17:14: 'command' must be a list of words, like [a, b], found a scalar",
                "20:14: 'command' must name the program to run and its arguments, like [./notify.sh, --verbose]",
                "22:11: unknown notifier type 'email' (known types: command, webhook)",
                "25:10: 'url' must not hold a user name or password (before '@') (its value is not shown)",
                "26:5: notifier 'nourl' is missing required option 'url' (the http:// or https:// URL notifications are POSTed to (never shown whole))",
                "31:14: the value of header 'Authorization' contains a control character, which an HTTP request cannot carry (not shown): check where it comes from (an environment variable?)",
            ])
    }

    @Test("an empty program name is refused with its line and column")
    func emptyProgram() {
        let text =
            feeds + """
                notify:
                  - name: empty
                    type: command
                    command: [""]
                  - name: blank
                    type: command
                    command: ["  ", --verbose]
                  - name: unset
                    type: command
                    command: ["${NOTIFY_PROGRAM:-}"]
                """
        #expect(
            problems(text) == [
                "11:15: 'command' has an empty item", "14:15: 'command' has an empty item",
                "17:15: 'command' has an empty item",
            ])
    }

    @Test("a header monitor or its HTTP client sets is refused with its line and column, Title and Tags with ntfy")
    func reservedHeaders() {
        let names = ["User-Agent", "connection", "Transfer-Encoding", "Content-Length", "Host"]
        let text =
            feeds + "notify:\n"
            + names.enumerated().map { index, name in
                """
                  - name: n\(index)
                    type: webhook
                    url: https://hooks.example/x
                    headers: {\(name): x}

                """
            }.joined()
                + """
                  - name: push
                    type: webhook
                    url: https://ntfy.example/topic
                    format: ntfy
                    headers: {Title: mine, tags: x, Priority: high, X-Title: fine}
                  - name: json
                    type: webhook
                    url: https://hooks.example/x
                    headers: {Title: fine, Tags: fine}
                """
        #expect(
            problems(text) == names.enumerated().map { index, name in
                "\(12 + 4 * index):15: invalid name '\(name)' in 'headers': monitor sets this header itself"
            } + [
                "33:14: header 'Title' is set by monitor itself with format ntfy",
                "33:14: header 'tags' is set by monitor itself with format ntfy",
            ])
    }

    @Test("a quoted source line never shows a webhook's URL, secret or header values")
    func secretsMasked() {
        let loaded = ConfigLoader().load(
            text: feeds + """
                notify:
                  - name: chat
                    type: webhook
                    url: "ftp://hooks.example/T1/B2/s3cr3t"
                    secret: [sup3rs3cret]
                    headers: {Authorization: "Bearer t0k3n", "Bad Name": x}
                """, path: "feeds.yaml")
        let rendered = loaded.renderedDiagnostics()
        #expect(
            loaded.diagnostics.map(\.description).sorted()
                == [
                    "11:10: error: 'url' must be an http:// or https:// URL (its value is not shown)",
                    "12:13: error: 'secret' must be a text, found a list",
                    "13:46: error: invalid name 'Bad Name' in 'headers': a header name has letters, digits and !#$%&'*+-.^_`|~",
                ].sorted())
        // Each of the three lines is quoted, with its secret masked.
        #expect(rendered.components(separatedBy: "\n").filter { $0.contains("url:") }.count == 1)
        #expect(rendered.components(separatedBy: "\n").filter { $0.contains("headers:") }.count == 1)
        for secret in ["s3cr3t", "sup3rs3cret", "t0k3n", "hooks.example"] {
            #expect(!rendered.contains(secret), "\(secret) in \(rendered)")
        }
    }
}
