import Foundation
import MonitorSQLite
import TestSupport
import Testing

@testable import MonitorCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `monitor run` on a real terminal: the built binary in tmux, against `monitor-standin` with latency.
@Suite(
    "monitor run full-screen in a real terminal (tmux)", .timeLimit(.minutes(5)),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed (scripts/setup installs it): skipped"))
struct TerminalViewTests {
    private struct Counts: Decodable {
        struct EONET: Decodable { var categories: [String: Int] }
        var eonet: EONET
    }

    private struct Stats: Decodable {
        var requests: Int
        var notModified: Int
        var eonetRequests: Int
    }

    private struct Categories: Decodable {
        struct Category: Decodable {
            var id: String
            var title: String
        }
        var categories: [Category]
    }

    @Test(
        "counts fill in mid-poll, a category opens on its events, the days window changes, q restores the terminal")
    func browse() async throws {
        let directory = try TemporaryDirectory()
        // One category request at a time, each answered after 300 ms: the poll takes seconds, seen as it goes.
        let standIn = try await StandIn(arguments: ["--eonet-events", "300", "--latency", "300ms"])
        defer { standIn.stop() }
        let counts = try JSONDecoder().decode(Counts.self, from: try await standIn.get("/_counts")).eonet.categories
        let catalog = try JSONDecoder().decode(Categories.self, from: try await standIn.get("/api/v3/categories"))
            .categories
        try directory.write("feeds.yaml", Self.planet(standIn) + "    concurrency: 1\n")
        print("terminal test: the stand-in listens on port \(standIn.port)")
        let tmux = try await TmuxSession(in: directory.url, width: 100, height: 30)
        defer {
            tmux.kill()
            // The directory holds the server's socket: it goes only after the server.
            withExtendedLifetime(directory) {}
        }
        print("terminal test: tmux started in \(directory.url.path)")
        try await tmux.send(
            "clear; echo PRE-RUN TEXT; TZ=Asia/Tokyo '\(MonitorProcess.executable.path)' run --config feeds.yaml --state state",
            literal: true)
        try await tmux.send("Enter")

        // Mid-poll: some categories counted, others still pending.
        let midPoll = try await tmux.waitForScreen("counts filling in") { screen in
            let rows = Self.panelRows(screen)
            return rows.contains { $0.hasSuffix("…") }
                && rows.contains { $0.range(of: #"\d( +\+\d+ new)?$"#, options: .regularExpression) != nil }
        }
        #expect(midPoll.hasPrefix("monitor "))
        #expect(midPoll.contains("> planet  polling ["))
        print("mid-poll screen:\n\(midPoll)")
        for row in Self.panelRows(midPoll) {
            let title = row.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0]
            let category = try #require(catalog.first { $0.title == title }, "a row of an unknown category: \(row)")
            // Never 0 for what is not known: a count shown is the category's whole count.
            if !row.hasSuffix("…") {
                #expect(row.contains(" \(counts[category.id] ?? -1)  +\(counts[category.id] ?? -1) new"), "\(row)")
            }
        }

        let done = try await tmux.waitForScreen("the poll to finish") { $0.contains("> planet  ok ") }
        #expect(done.contains("planet: first sync, 300 items"))

        // `r` polls the feed now, without restarting it: the log line says so, and the stand-in is asked again
        // (conditionally: every category answers 304).
        let before = try JSONDecoder().decode(Stats.self, from: try await standIn.get("/_stats"))
        try await tmux.send("r")
        let polledAgain = try await tmux.waitForScreen("the poll asked with r") {
            $0.contains("planet: polling now (r)") && $0.contains("> planet  not modified ")
        }
        print("after r:\n\(polledAgain)")
        let later = try JSONDecoder().decode(Stats.self, from: try await standIn.get("/_stats"))
        // One poll, not two: the catalog and the 13 categories, once each, all answered 304.
        #expect(later.eonetRequests - before.eonetRequests == 14)
        #expect((later.requests - before.requests, later.notModified - before.notModified) == (14, 14))
        #expect(polledAgain.contains("planet (eonet): not modified — 300 items, 0 new, 14 requests (14 not modified)"))

        // Enter opens the feed's groups: every category with its count.
        try await tmux.send("Enter")
        let groups = try await tmux.waitForScreen("the groups") { $0.contains("300 items in 13 groups, all days") }
        let titleWidth = catalog.map(\.title.count).max() ?? 0
        for category in catalog {
            let count = String(counts[category.id] ?? 0)
            let prefix =
                category.title.padding(toLength: titleWidth, withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: 3 - count.count) + count
            #expect(groups.contains(prefix + "  closed ") || groups.contains(prefix + "  open "), "\(category.title)")
        }

        // `/` filters as typed; Enter keeps the filter with its first match selected; Enter opens its items.
        try await tmux.send("/")
        try await tmux.send("Wild", literal: true)
        let filtered = try await tmux.waitForScreen("the filter") { $0.contains("/Wild  (Enter keeps") }
        #expect(filtered.contains("> Wildfires"))
        #expect(!filtered.contains("Drought"))
        try await tmux.send("Enter")
        try await tmux.send("Enter")
        let wildfires = counts["wildfires"] ?? 0
        let items = try await tmux.waitForScreen("the wildfires") {
            $0.contains("monitor › planet › Wildfires") && $0.contains("\(wildfires) items, newest first, all days")
        }
        let store = try SQLiteStateStore(directory: directory.url.appendingPathComponent("state"))
        let stored = try await store.items(feed: "planet").filter { $0.groups.contains("wildfires") }
            .sorted { ($0.date, $0.id) > ($1.date, $1.id) }
        #expect(stored.count == wildfires)
        let newest = try #require(stored.first)
        // In UTC whatever TZ says, newest first, the selected one's link below.
        #expect(items.contains("> \(Self.minute(newest.date))  \(newest.title)"))
        #expect(items.contains("  \(newest.url ?? "no link")"))

        // `d` steps the window to the last day: the list is read again from the stored items.
        try await tmux.send("d")
        let now = Date()
        let lastDay = stored.filter { $0.date >= now.addingTimeInterval(-86_400) }
        let windowed = try await tmux.waitForScreen("the last day") { $0.contains("last 1 day") }
        #expect(windowed.contains("\(lastDay.count) item\(lastDay.count == 1 ? "" : "s"), newest first, last 1 day"))
        #expect(lastDay.count < wildfires)

        // `q` quits: the alternate screen is gone (the text from before the run is back) and the mode restored.
        try await tmux.send("q")
        let after = try await tmux.waitForScreen("the shell again") { $0.contains("PRE-RUN TEXT\n$") }
        #expect(!after.contains("monitor ›"))
        #expect(!after.contains("q quit"))
        try await expectShellMode(tmux, number: 1)
    }

    @Test(
        "Ctrl-Z gives the shell its screen and mode back and stops monitor; fg draws the whole screen again; so does SIGTSTP"
    )
    func suspend() async throws {
        let directory = try TemporaryDirectory()
        let standIn = try await StandIn(arguments: ["--eonet-events", "30"])
        defer { standIn.stop() }
        try directory.write("feeds.yaml", Self.planet(standIn))
        let tmux = try await TmuxSession(in: directory.url, width: 100, height: 30)
        defer {
            tmux.kill()
            withExtendedLifetime(directory) {}
        }
        // Started through `sh -c … exec`, which writes its process id for the SIGTSTP below.
        try await tmux.send(
            "clear; echo PRE-RUN TEXT; sh -c 'echo $$ > monitor.pid; exec \"$0\" run --config feeds.yaml --state state' "
                + "'\(MonitorProcess.executable.path)'",
            literal: true)
        try await tmux.send("Enter")
        let before = try await tmux.waitForScreen("the poll to finish") {
            $0.contains("> planet  ok ") && $0.contains("planet: first sync, 30 items")
        }
        print("before Ctrl-Z:\n\(before)")
        let pid = try #require(Int32(try directory.read("monitor.pid").trimmingCharacters(in: .whitespacesAndNewlines)))

        // Ctrl-Z: the screen from before the run is back with the shell's prompt; the job is stopped.
        try await tmux.send("C-z")
        let stopped = try await tmux.waitForScreen("the shell after Ctrl-Z") {
            Self.stoppedLines($0) == 1 && Self.prompts($0)
        }
        print("after Ctrl-Z:\n\(stopped)")
        #expect(stopped.hasPrefix("PRE-RUN TEXT\n"))
        #expect(!stopped.contains("q quit"))
        try await tmux.send("jobs", literal: true)
        try await tmux.send("Enter")
        let jobs = try await tmux.waitForScreen("jobs") { Self.stoppedLines($0) == 2 && Self.prompts($0) }
        let listed = jobs.components(separatedBy: "\n").drop { $0 != "$ jobs" }.dropFirst().first ?? ""
        #expect(listed.hasPrefix("[1] + Stopped"), "\(jobs)")
        // The terminal's mode is the shell's again: echo and canonical input on.
        try await expectShellMode(tmux, number: 1)

        // fg: the full screen is drawn again, whole.
        try await tmux.send("fg", literal: true)
        try await tmux.send("Enter")
        let resumed = try await tmux.waitForScreen("the full screen after fg") {
            Self.masked($0) == Self.masked(before)
        }
        #expect(Self.masked(resumed) == Self.masked(before))

        // A SIGTSTP sent from elsewhere does the same.
        #expect(kill(pid, SIGTSTP) == 0)
        let stoppedAgain = try await tmux.waitForScreen("the shell after SIGTSTP") {
            Self.stoppedLines($0) == 3 && Self.prompts($0)
        }
        #expect(!stoppedAgain.contains("q quit"))
        try await tmux.send("fg", literal: true)
        try await tmux.send("Enter")
        try await tmux.waitForScreen("the full screen after the second fg") { Self.masked($0) == Self.masked(before) }

        // q still quits, the terminal restored.
        try await tmux.send("q")
        try await tmux.waitForScreen("the shell at the end") { !$0.contains("q quit") && Self.prompts($0) }
        try await expectShellMode(tmux, number: 2)
    }

    /// Asks the shell for the terminal's echo and canonical modes and expects both on; `number` numbers the answer
    /// (`mode 2: echo icanon`), so that it is found whatever scrolled off the screen before it.
    private func expectShellMode(_ tmux: TmuxSession, number: Int) async throws {
        // `mode %s:` in the command: its echo on the screen never reads as the answer.
        try await tmux.send(
            "printf 'mode %s: ' \(number); "
                + "stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e echo -e -icanon -e -echo | sort | tr '\\n' ' '; echo",
            literal: true)
        try await tmux.send("Enter")
        // capture-pane drops trailing spaces: the line reads `echo icanon` when both are on, `-echo -icanon` when not.
        let answer = { (screen: String) in
            screen.components(separatedBy: "\n").last { $0.hasPrefix("mode \(number): ") }
        }
        // Whole once the prompt follows it.
        let screen = try await tmux.waitForScreen("the terminal mode") { answer($0) != nil && Self.prompts($0) }
        #expect(answer(screen) == "mode \(number): echo icanon")
    }

    /// How many lines of the shell say that the job stopped.
    private static func stoppedLines(_ screen: String) -> Int {
        screen.components(separatedBy: "\n").filter { $0.contains("[1] + Stopped") }.count
    }

    /// Whether the shell waits for a command: its prompt is the last line of text.
    private static func prompts(_ screen: String) -> Bool {
        screen.components(separatedBy: "\n").last { !$0.isEmpty } == "$"
    }

    /// The screen with the clock of its title row masked.
    private static func masked(_ screen: String) -> String {
        var lines = screen.components(separatedBy: "\n")
        if let title = lines.first {
            lines[0] = title.replacingOccurrences(
                of: #"\d\d:\d\d:\d\d$"#, with: "hh:mm:ss", options: .regularExpression)
        }
        return lines.joined(separator: "\n")
    }

    /// A feeds file with the stand-in's EONET as `planet`.
    private static func planet(_ standIn: StandIn) -> String {
        "feeds:\n  - name: planet\n    type: eonet\n    api: http://127.0.0.1:\(standIn.port)/api/v3\n"
    }

    /// The rows of the live panel: those under `planet: polling…`.
    private static func panelRows(_ screen: String) -> [String] {
        let lines = screen.components(separatedBy: "\n")
        guard let heading = lines.firstIndex(where: { $0.hasPrefix("planet: polling") }) else { return [] }
        return Array(
            lines[(heading + 1)...].prefix { $0.hasPrefix("  ") && !$0.trimmingCharacters(in: .whitespaces).isEmpty })
    }

    private static func minute(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!)
    }
}
