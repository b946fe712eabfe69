import Foundation
import TestSupport
import Testing

/// The browser of `monitor run` in a real terminal (tmux): a failed feed's panel, an item's details, titles with wide
/// characters and with escape sequences, on two exec feeds.
@Suite(
    "the browser's panels and details in a real terminal (tmux)", .timeLimit(.minutes(5)),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed (scripts/setup installs it): skipped"))
struct BrowserTerminalTests {
    /// A program reporting a group and three items: a long title in Japanese with an emoji, one with escape sequences
    /// that would reach the clipboard (OSC 52), set the title (OSC 2) and move the cursor (CSI), one plain with a link.
    static let quakes = #"""
        import json
        print(json.dumps({"group": {"id": "quakes", "title": "地震 🌋"}}))
        print(json.dumps({"item": {"id": "1", "title": "東京で地震 🔥 マグニチュード6.1の強い揺れが観測されました、津波の心配はありません",
            "date": "2026-11-20T03:04:05Z", "groups": ["quakes"], "url": "https://example.org/quakes/1",
            "details": {"lat": 35.68, "lon": 139.69, "magnitude": 6.1}}}))
        print(json.dumps({"item": {"id": "2",
            "title": "\x1b]52;c;cm0gLXJmIH4=\x07clipboard \x1b]2;pwned\x07title \x1b[5;5Hcursor \x1b[2Jclear",
            "date": "2026-11-19T03:04:05Z", "groups": ["quakes"]}}))
        """#

    /// The screen with every clock time written `hh:mm:ss` (`next hh…` where the row cuts it), and its log row (row
    /// 17 of 18: the line of whichever feed's first poll ended last) written `<log>`.
    static func masked(_ screen: String) -> String {
        var rows = screen.components(separatedBy: "\n")
        if rows.last == "" { rows.removeLast() }
        if rows.count > 16 { rows[16] = "<log>" }
        return rows.joined(separator: "\n")
            .replacingOccurrences(of: #"\d\d:\d\d:\d\d"#, with: "hh:mm:ss", options: .regularExpression)
            .replacingOccurrences(of: #"next \d\d…"#, with: "next hh…", options: .regularExpression)
    }

    @Test("a failed feed's error in full in its panel; an item's details on Enter, o prints its link; no escape acts")
    func panelsAndDetails() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("quakes.py", Self.quakes)
        try directory.write(
            "feeds.yaml",
            """
            feeds:
              - name: quakes
                type: exec
                command: [python3, quakes.py]
              - name: broken
                type: exec
                command: [sh, -c, "echo 'Traceback (most recent call last): File \\"source.py\\", line 12, in <module>' >&2; echo 'KeyError: the feed asked for a key that the server no longer sends' >&2; exit 2"]
            """)
        let tmux = try await TmuxSession(in: directory.url, width: 70, height: 18)
        defer {
            tmux.kill()
            // The directory holds the server's socket: it goes only after the server.
            withExtendedLifetime(directory) {}
        }
        let title = try await tmux.paneTitle()
        try await tmux.allowClipboard()
        try await tmux.send(
            "clear; echo PRE-RUN TEXT; TZ=Asia/Tokyo '\(MonitorProcess.executable.path)' run --config feeds.yaml --state state",
            literal: true)
        try await tmux.send("Enter")
        _ = try await tmux.waitForScreen("both polls to end") {
            $0.contains("quakes  ok ") && $0.contains("broken  failed")
        }
        // The failed feed selected: its panel says since when it fails, its error whole and wrapped, its next poll.
        try await tmux.send("j")
        let failed = try await tmux.waitForScreen("the failed feed's panel") { $0.contains("next poll at") }
        print("the failed feed:\n\(failed)")
        #expect(
            Self.masked(failed) == """
                monitor                                         all days  hh:mm:ss UTC
                  quakes  ok                     2 items      +2 new     next hh:mm:ss
                > broken  failed                 0 items                 next hh:mm:ss

                broken (exec): failing since hh:mm:ss, 1 poll
                  'sh' exited with status 2: Traceback (most recent call last): File
                  "source.py", line 12, in <module> | KeyError: the feed asked for a
                  key that the server no longer sends
                next poll at hh:mm:ss







                <log>
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  m map  ? k…
                """)

        // Enter on quakes, its group, its first item: the details.
        try await tmux.send("k")
        try await tmux.send("Enter")
        _ = try await tmux.waitForScreen("the groups") { $0.contains("2 items in 1 group") }
        try await tmux.send("Enter")
        let items = try await tmux.waitForScreen("the items") { $0.contains("2 items, newest first") }
        print("the items:\n\(items)")
        #expect(
            Self.masked(items) == """
                monitor › quakes › 地震 🌋                      all days  hh:mm:ss UTC
                2 items, newest first, all days

                > 2026-11-20 03:04  東京で地震 🔥 マグニチュード6.1の強い揺れが観測さ…
                  2026-11-19 03:04  clipboard title cursor clear









                  lat: 35.68  lon: 139.69  magnitude: 6.1
                  https://example.org/quakes/1
                <log>
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  m map  ? k…
                """)
        try await tmux.send("Enter")
        let details = try await tmux.waitForScreen("the details") { $0.contains("Esc back  o print the link") }
        print("the details:\n\(details)")
        #expect(
            Self.masked(details) == """
                monitor › quakes › 地震 🌋                      all days  hh:mm:ss UTC
                  東京で地震 🔥
                  マグニチュード6.1の強い揺れが観測されました、津波の心配はありません

                  date       2026-11-20 03:04 UTC
                  group      地震 🌋
                  lat        35.68
                  lon        139.69
                  magnitude  6.1
                  link       https://example.org/quakes/1






                <log>
                Esc back  o print the link  d days  m map  ? keys  q quit
                """)
        try await tmux.send("o")
        let link = try await tmux.waitForScreen("the link printed") { $0.contains("link: https://") }
        #expect(
            link.components(separatedBy: "\n")[16].replacingOccurrences(
                of: #"^\d\d:\d\d:\d\d "#, with: "", options: .regularExpression) == "link: https://example.org/quakes/1"
        )
        try await tmux.send("Escape")
        _ = try await tmux.waitForScreen("the items again") { $0.contains("2 items, newest first") }

        // Nothing the titles carried reached the terminal: its title and the clipboard are as they were.
        #expect(try await tmux.paneTitle() == title)
        #expect(try await tmux.pasteBuffers() == "")
        try await tmux.send("q")
        _ = try await tmux.waitForScreen("the shell again") { $0.contains("PRE-RUN TEXT\n$") }
    }
}
