import Foundation
import TestSupport
import Testing

/// The full screen of `monitor run` in a real terminal (tmux) while its feeds file is edited: a change that is not
/// taken holds the log row until the file is valid again, and nothing else is written to the terminal.
@Suite(
    "a rejected reload in the full screen (tmux)", .timeLimit(.minutes(5)),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed (scripts/setup installs it): skipped"))
struct RejectedReloadTerminalTests {
    static let feeds = """
        feeds:
          - name: quiet
            type: exec
            command: [cat, items.jsonl]
            interval: 1h
        """

    /// The screen with every clock time written `hh:mm:ss`, and the poll's duration `<duration>`.
    static func masked(_ screen: String) -> String {
        screen.replacingOccurrences(of: #"\d\d:\d\d:\d\d"#, with: "hh:mm:ss", options: .regularExpression)
            .replacingOccurrences(of: #"\b[0-9.]+m?s\b"#, with: "<duration>", options: .regularExpression)
    }

    @Test("the log row says the file is invalid, through keys, until it is valid again; the screen stays whole")
    func rejectedReload() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("items.jsonl", "")
        try directory.write("feeds.yaml", Self.feeds)
        let tmux = try await TmuxSession(in: directory.url, width: 60, height: 8)
        defer {
            tmux.kill()
            // The directory holds the server's socket: it goes only after the server.
            withExtendedLifetime(directory) {}
        }
        try await tmux.send(
            "clear; '\(MonitorProcess.executable.path)' run --config feeds.yaml --state state", literal: true)
        try await tmux.send("Enter")
        _ = try await tmux.waitForScreen("the poll to end") { $0.contains("quiet  ok ") }

        try directory.write(
            "feeds.yaml", Self.feeds.replacingOccurrences(of: "interval: 1h", with: "interval: soon"), atomically: true)
        let rejected = try await tmux.waitForScreen("the rejected reload") { $0.contains("feeds file invalid") }
        print("rejected:\n\(rejected)")
        let expected = """
            monitor                               all days  hh:mm:ss UTC
            > quiet  ok            0 items                 next hh:mm:ss

            quiet (exec): ok — 0 items, 0 new, 0 requests, <duration>


            feeds file invalid (line 5): running the last valid one
            ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …

            """
        #expect(Self.masked(rejected) == expected)

        // A key redraws the screen: the line stays.
        try await tmux.send("d")
        let stepped = try await tmux.waitForScreen("the days window stepped") { !$0.contains("all days") }
        print("after d:\n\(stepped)")
        #expect(stepped.contains("\nfeeds file invalid (line 5): running the last valid one\n"))

        // Valid again: the log row says the reload.
        try directory.write("feeds.yaml", Self.feeds, atomically: true)
        let reloaded = try await tmux.waitForScreen("the reload") { $0.contains("reloaded") }
        print("reloaded:\n\(reloaded)")
        #expect(!reloaded.contains("invalid"))
        #expect(reloaded.contains("\nfeeds.yaml reloaded: no feed changed\n"))
        try await tmux.send("q")
    }
}
