import Foundation
import TestSupport
import Testing

@testable import MonitorApp
@testable import MonitorCore
@testable import MonitorText

/// Loads `text` with the built-in sources and a fixed environment.
private func load(_ text: String, environment: [String: String] = ["GITHUB_TOKEN": "t0ken"]) -> LoadedConfig {
    ConfigLoader(environment: environment).load(text: text, path: "feeds.yaml")
}

/// The diagnostics as `LINE:COL: MESSAGE` strings, in order.
private func problems(_ text: String, environment: [String: String] = ["GITHUB_TOKEN": "t0ken"]) -> [String] {
    let loaded = load(text, environment: environment)
    return DiagnosticRenderer(path: "", source: "").sorted(loaded.diagnostics).map { diagnostic in
        "\(diagnostic.location.map { "\($0)" } ?? "-"): \(diagnostic.message)"
    }
}

@Suite("Loading and validating feeds.yaml")
struct ConfigLoaderTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("the root feeds.yaml watches what the classic apps watched")
    func rootFeeds() throws {
        let loaded = ConfigLoader(environment: [:]).load(
            path: Self.packageRoot.appendingPathComponent("feeds.yaml").path)
        #expect(loaded.diagnostics.isEmpty)
        let config = try #require(loaded.config)
        #expect(config.feeds.map(\.name) == ["rxswift", "swift-top", "planet"])
        #expect(config.feeds.map(\.type) == ["github", "github", "eonet"])
        #expect(config.feeds[0].options.string("repo") == "ReactiveX/RxSwift")
        #expect(config.feeds[0].options.string("token") == nil)
        #expect(config.feeds[1].options.string("search") == "language:swift")
        #expect(config.feeds[1].options.integer("top") == 5)
        #expect(config.feeds[2].options.integer("days") == 360)
        #expect(config.feeds[2].options.string("status") == "all")
        #expect(config.feeds[2].options.list("categories") == nil)
        #expect(config.settings == Settings())
    }

    @Test("the starter file of `monitor init` is valid")
    func starter() throws {
        let loaded = ConfigLoader(environment: [:]).load(text: StarterConfig.text, path: "feeds.yaml")
        #expect(loaded.diagnostics.isEmpty)
        #expect(loaded.config?.feeds.map(\.type) == ["github", "github", "feed", "eonet"])
    }

    @Test("values are typed, defaults filled in, and settings read")
    func typed() throws {
        let loaded = load(
            """
            settings:
              concurrency: 8
              interval: 1h30m
              timeout: 10s
              max_body: 1MiB
              retries: 0
            feeds:
              - name: rx
                type: github
                repo: ReactiveX/RxSwift
                token: ${GITHUB_TOKEN}
                types: [PushEvent, WatchEvent]
                interval: 90s
              - name: planet
                type: eonet
                categories:
                  - wildfires
                  - volcanoes
            """)
        #expect(loaded.diagnostics.isEmpty)
        let config = try #require(loaded.config)
        #expect(
            config.settings
                == {
                    var settings = Settings()
                    settings.concurrency = 8
                    settings.interval = .seconds(5400)
                    settings.timeout = .seconds(10)
                    settings.maxBody = 1 << 20
                    settings.retries = 0
                    return settings
                }())
        let rx = config.feeds[0].options
        #expect(rx.string("token") == "t0ken")
        #expect(rx.list("types") == ["PushEvent", "WatchEvent"])
        #expect(rx.duration("interval") == .seconds(90))
        #expect(rx.integer("keep") == 50)
        #expect(rx.string("api") == "https://api.github.com")
        #expect(rx.location(of: "repo") == SourceLocation(line: 10, column: 11))
        let planet = config.feeds[1].options
        #expect(planet.list("categories") == ["wildfires", "volcanoes"])
        #expect(planet.integer("concurrency") == 2)
        #expect(config.feeds[1].options.location == SourceLocation(line: 14, column: 5))
    }

    @Test("anchors, aliases and merge keys share options between feeds")
    func anchors() throws {
        let loaded = load(
            """
            feeds:
              - &rx
                name: rx
                type: github
                repo: ReactiveX/RxSwift
                keep: 20
              - <<: *rx
                name: rx-copy
                keep: 30
            """)
        #expect(loaded.diagnostics.isEmpty)
        let feeds = try #require(loaded.config).feeds
        #expect(feeds.map(\.name) == ["rx", "rx-copy"])
        #expect(feeds.map { $0.options.integer("keep") } == [20, 30])
        #expect(feeds[1].options.string("repo") == "ReactiveX/RxSwift")
    }

    @Test(
        "each kind of problem, at its exact line and column",
        arguments: [
            (
                "typo'd key with a suggestion",
                "feeds:\n  - name: rx\n    type: github\n    repo: a/b\n    kep: 10\n",
                ["5:5: unknown key 'kep' in feed 'rx' (did you mean 'keep'?)"]
            ),
            (
                "unknown key without a close match lists the keys",
                "feeds:\n  - name: p\n    type: eonet\n    colour: red\n",
                [
                    "4:5: unknown key 'colour' in feed 'p' (known keys: name, type, interval, expect_update_within, where, api, days, status, categories, limit, concurrency)"
                ]
            ),
            (
                "a value of the wrong type",
                "feeds:\n  - name: rx\n    type: github\n    repo: a/b\n    keep: lots\n",
                ["5:11: 'keep' must be a whole number from 1 to 300, not 'lots'"]
            ),
            (
                "a number out of range",
                "feeds:\n  - name: rx\n    type: github\n    repo: a/b\n    keep: 301\n",
                ["5:11: 'keep' must be a whole number from 1 to 300, not 301"]
            ),
            (
                "a duration without a unit",
                "settings:\n  interval: 15\nfeeds:\n  - {name: p, type: eonet}\n",
                ["2:13: 'interval' must be a duration like 90s, 15m or 1h, not '15' (add a unit: s, m or h)"]
            ),
            (
                "a list where a number goes",
                "feeds:\n  - name: p\n    type: eonet\n    days: [1, 2]\n",
                ["4:11: 'days' must be a whole number from 1 to 36500, found a list"]
            ),
            (
                "a word where a list goes",
                "feeds:\n  - name: rx\n    type: github\n    repo: a/b\n    types: PushEvent\n",
                ["5:12: 'types' must be a list of event types, like [a, b], found a scalar"]
            ),
            (
                "a choice misspelt",
                "feeds:\n  - name: p\n    type: eonet\n    status: opne\n",
                ["4:13: 'status' must be one of open, closed, all, not 'opne' (did you mean 'open'?)"]
            ),
            (
                "a missing required option",
                "feeds:\n  - type: eonet\n    days: 5\n",
                [
                    "2:5: feed #1 is missing required option 'name' (unique name of the feed, as output and `monitor events NAME` show it)"
                ]
            ),
            (
                "a missing type lists the known ones",
                "feeds:\n  - name: x\n",
                ["2:5: feed 'x' is missing 'type' (known types: eonet, exec, feed, github, json)"]
            ),
            (
                "an unknown type with a suggestion",
                "feeds:\n  - name: x\n    type: githb\n    repo: a/b\n",
                [
                    "3:11: unknown feed type 'githb' (did you mean 'github'? known types: eonet, exec, feed, github, json)"
                ]
            ),
            (
                "a json feed's paths: one that is not a path, and a field's that finds many",
                "feeds:\n  - name: j\n    type: json\n    url: https://api.example/x\n    items: data..children\n"
                    + "    details: {score: \"tags[*]\", ok: n}\n",
                [
                    "5:12: invalid items 'data..children': expected a member's name (letters, digits, _-$@:) at 6; quote others: [\"a b\"]",
                    "6:22: invalid value of 'score' in 'details': '[*]' finds many values; this path finds one",
                ]
            ),
            (
                "duplicate feed names",
                "feeds:\n  - {name: a, type: eonet}\n  - {name: b, type: eonet}\n  - {name: a, type: eonet}\n",
                ["4:12: duplicate feed name 'a' (first used on line 2)"]
            ),
            (
                "a duplicate feed name on a feed with another error: both reported",
                "feeds:\n  - {name: a, type: eonet}\n  - {name: a, type: eonnet}\n",
                [
                    "3:12: duplicate feed name 'a' (first used on line 2)",
                    "3:21: unknown feed type 'eonnet' (did you mean 'eonet'? known types: eonet, exec, feed, github, json)",
                ]
            ),
            (
                "a duplicate key",
                "feeds:\n  - name: a\n    type: eonet\n    days: 1\n    days: 2\n",
                ["5:5: duplicate key 'days' in this feed (first on line 4)"]
            ),
            (
                "an invalid feed name",
                "feeds:\n  - name: my feed\n    type: eonet\n",
                [
                    "2:11: invalid name 'my feed': a feed name uses letters, digits, '.', '_' and '-', and starts with a letter or digit"
                ]
            ),
            (
                "an unset environment variable, pointing at its ${",
                "feeds:\n  - name: rx\n    type: github\n    repo: a/b\n    token: \"Bearer ${NOPE}\"\n",
                ["5:20: environment variable 'NOPE' is not set (write ${NOPE:-} to allow it to be unset)"]
            ),
            (
                "a ${VAR:?message} names the variable and says the message",
                "feeds:\n  - name: rx\n    type: github\n    repo: a/b\n    token: ${NOPE:?create a token first}\n",
                ["5:12: environment variable 'NOPE' is not set: create a token first"]
            ),
            (
                "an unknown top-level key",
                "feed:\n  - {name: a, type: eonet}\n",
                ["1:1: unknown top-level key 'feed' (did you mean 'feeds'?)", "1:1: missing 'feeds:' list"]
            ),
            (
                "an unknown setting",
                "settings:\n  concurrancy: 2\nfeeds:\n  - {name: a, type: eonet}\n",
                ["2:3: unknown key 'concurrancy' in settings (did you mean 'concurrency'?)"]
            ),
            (
                "feeds that are not a list",
                "feeds:\n  name: a\n",
                ["2:3: 'feeds' must be a list of feeds (each item starting with '- name:'), found a mapping"]
            ),
            (
                "an empty feeds list",
                "feeds: []\n",
                ["1:8: 'feeds' is empty: add at least one feed"]
            ),
            (
                "a document that is not a mapping",
                "- a\n- b\n",
                ["1:1: expected a mapping with 'settings:' and 'feeds:' at the top level, found a list"]
            ),
            (
                "a github feed with two targets",
                "feeds:\n  - name: g\n    type: github\n    repo: a/b\n    org: c\n",
                ["5:10: a github feed follows one of 'repo', 'org', 'user' or 'search', not both 'repo' and 'org'"]
            ),
            (
                "a github feed with no target",
                "feeds:\n  - name: g\n    type: github\n",
                ["2:5: a github feed needs one of 'repo', 'org', 'user' or 'search'"]
            ),
            (
                "top without search",
                "feeds:\n  - name: g\n    type: github\n    user: octocat\n    top: 3\n",
                ["5:10: 'top' applies only to a 'search' feed"]
            ),
            (
                "a malformed repository",
                "feeds:\n  - name: g\n    type: github\n    repo: RxSwift\n",
                ["4:11: invalid repo 'RxSwift': write the repository as owner/name, like ReactiveX/RxSwift"]
            ),
            (
                "a bad URL",
                "feeds:\n  - name: p\n    type: eonet\n    api: eonet.gsfc.nasa.gov\n",
                ["4:10: 'api' must be an http:// or https:// URL, not 'eonet.gsfc.nasa.gov'"]
            ),
            (
                "columns count characters after unicode",
                "feeds:\n  - {name: ñandú-日本, type: eonet, dayz: 3}\n",
                [
                    "2:12: invalid name 'ñandú-日本': a feed name uses letters, digits, '.', '_' and '-', and starts with a letter or digit",
                    "2:35: unknown key 'dayz' in feed 'ñandú-日本' (did you mean 'days'?)",
                ]
            ),
        ] as [(String, String, [String])])
    func problem(_ name: String, text: String, expected: [String]) {
        #expect(problems(text) == expected, "\(name)")
    }

    @Test("every problem of a file is reported at once, a syntax error included")
    func allAtOnce() {
        let text = """
            settings:
              intervall: 15m
            feeds:
              - name: rx
                type: github
                repo: ReactiveX/RxSwift
                keep: many
              - name: planet
                type: eonet
                days: [oops
            """
        let loaded = load(text)
        #expect(loaded.config == nil)
        #expect(
            loaded.renderedDiagnostics() == """
                feeds.yaml:2:3: error: unknown key 'intervall' in settings (did you mean 'interval'?)
                  intervall: 15m
                  ^
                feeds.yaml:7:11: error: 'keep' must be a whole number from 1 to 300, not 'many'
                    keep: many
                          ^
                feeds.yaml:10:16: error: did not find expected ',' or ']' while parsing a flow sequence
                    days: [oops
                               ^
                3 errors in feeds.yaml

                """)
    }

    @Test("a token is never quoted in a diagnostic: its characters are masked, and the caret still lines up")
    func secretsMasked() {
        let text = """
            feeds:
              - {name: rx, type: github, repo: a/b, token: ghp_s3cr3tvalue, kep: 1}
              - name: other
                type: github
                user: octocat
                tokn: "ghp_an0ther"
            """
        let rendered = load(text).renderedDiagnostics()
        #expect(!rendered.contains("s3cr3t"))
        #expect(!rendered.contains("an0ther"))
        #expect(
            rendered == """
                feeds.yaml:2:65: error: unknown key 'kep' in feed 'rx' (did you mean 'keep'?)
                  - {name: rx, type: github, repo: a/b, token: ***************, kep: 1}
                                                                                ^
                feeds.yaml:6:5: error: unknown key 'tokn' in feed 'other' (did you mean 'token'?)
                    tokn: *************
                    ^
                2 errors in feeds.yaml

                """)
    }

    @Test("an empty file says what it needs")
    func empty() {
        #expect(problems("") == ["-: the file is empty: it needs a 'feeds:' list (`monitor init` writes a starter)"])
        #expect(problems("# only a comment\n") == problems(""))
    }

    @Test("a file that cannot be read is one clear error")
    func unreadable() throws {
        let directory = try TemporaryDirectory()
        let missing = ConfigLoader().load(path: directory.url.appendingPathComponent("nope.yaml").path)
        #expect(
            missing.diagnostics.map(\.message) == [
                "no such file (write a starter with `monitor init`, or name another with --config)"
            ])
        let binary = try directory.write("binary.yaml", "")
        try Data([0x66, 0x3A, 0xFF, 0xFE]).write(to: binary)
        #expect(ConfigLoader().load(path: binary.path).diagnostics.map(\.message) == ["the file is not UTF-8 text"])
        #expect(
            ConfigLoader().load(path: directory.url.path).diagnostics.map(\.message) == [
                "is a directory, not a regular file"
            ])
        // Neither waited on (a FIFO without a writer blocks `open`) nor read without end (a device).
        let fifo = directory.url.appendingPathComponent("fifo.yaml").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(ConfigLoader().load(path: fifo).diagnostics.map(\.message) == ["is a FIFO, not a regular file"])
        #expect(
            ConfigLoader().load(path: "/dev/zero").diagnostics.map(\.message) == [
                "is a character device, not a regular file"
            ])
        let loop = directory.url.appendingPathComponent("loop.yaml").path
        #expect(symlink(loop, loop) == 0)
        #expect(
            ConfigLoader().load(path: loop).diagnostics.map(\.message) == [
                "too many levels of symbolic links: is there a symbolic link loop?"
            ])
    }

    @Test("a token holding a control character is an error at its place that never shows the token")
    func tokenWithControlCharacter() {
        let text = """
            feeds:
              - name: rx
                type: github
                repo: a/b
                token: ${GITHUB_TOKEN}
              - name: literal
                type: github
                repo: a/b
                token: "ghp_c\\tghp_d"
            """
        let loaded = load(text, environment: ["GITHUB_TOKEN": "ghp_a\nghp_b"])
        #expect(loaded.config == nil)
        #expect(
            loaded.renderedDiagnostics() == """
                feeds.yaml:5:12: error: 'token' contains a line break (U+000A), which an HTTP request cannot carry: check where its value comes from (an environment variable?)
                    token: ***************
                           ^
                feeds.yaml:9:12: error: 'token' contains a tab (U+0009), which an HTTP request cannot carry: check where its value comes from (an environment variable?)
                    token: **************
                           ^
                2 errors in feeds.yaml

                """)
    }

    @Test("a user name or password in a URL option is refused, and the quoted line masks it")
    func passwordInURL() {
        let text = """
            feeds:
              - {name: rx, type: github, repo: a/b, api: "http://user:s3cret@127.0.0.1:8080/api"}
              - name: planet
                type: eonet
                api: https://me@eonet.example/api/v3
            """
        let rendered = load(text).renderedDiagnostics()
        #expect(
            rendered == """
                feeds.yaml:2:46: error: 'api' must not hold a user name or password (before '@'): a credential goes in 'token', never in a URL
                  - {name: rx, type: github, repo: a/b, api: ***************************************}
                                                             ^
                feeds.yaml:5:10: error: 'api' must not hold a user name or password (before '@'): a credential goes in 'token', never in a URL
                    api: *******************************
                         ^
                2 errors in feeds.yaml

                """)
        #expect(!rendered.contains("s3cret"))
    }
}
